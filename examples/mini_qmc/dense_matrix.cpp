#include "dense_matrix.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "ringcomm/error.hpp"

namespace mini_qmc {

Matrix::Matrix(int n, double fill) : n_(n), values_(static_cast<std::size_t>(n) * n, fill) {}

Matrix Matrix::identity(int n) {
  Matrix one(n);
  for (int i = 0; i < n; ++i) one(i, i) = 1.0;
  return one;
}

Matrix& Matrix::operator+=(const Matrix& other) {
  for (std::size_t i = 0; i < values_.size(); ++i) values_[i] += other.values_[i];
  return *this;
}

Matrix& Matrix::operator-=(const Matrix& other) {
  for (std::size_t i = 0; i < values_.size(); ++i) values_[i] -= other.values_[i];
  return *this;
}

Matrix operator*(const Matrix& left, const Matrix& right) {
  const int n = left.size();
  Matrix product(n);
  // Column j of the product is a combination of the columns of `left`: the innermost loop walks
  // both matrices down a column, which is contiguous in memory.
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < n; ++k) {
      const double weight = right(k, j);
      if (weight == 0.0) continue;
      for (int i = 0; i < n; ++i) product(i, j) += left(i, k) * weight;
    }
  return product;
}

Matrix operator-(Matrix left, const Matrix& right) { return left -= right; }
Matrix operator+(Matrix left, const Matrix& right) { return left += right; }

Matrix scale_rows(const std::vector<double>& d, const Matrix& a) {
  Matrix scaled = a;
  for (int j = 0; j < a.size(); ++j)
    for (int i = 0; i < a.size(); ++i) scaled(i, j) *= d[i];
  return scaled;
}

Matrix scale_columns(const Matrix& a, const std::vector<double>& d) {
  Matrix scaled = a;
  for (int j = 0; j < a.size(); ++j)
    for (int i = 0; i < a.size(); ++i) scaled(i, j) *= d[j];
  return scaled;
}

double max_abs_difference(const Matrix& a, const Matrix& b) {
  double largest = 0.0;
  for (int j = 0; j < a.size(); ++j)
    for (int i = 0; i < a.size(); ++i) largest = std::fmax(largest, std::fabs(a(i, j) - b(i, j)));
  return largest;
}

LuDecomposition::LuDecomposition(Matrix a) : lu_(std::move(a)), pivot_row_(lu_.size()) {
  const int n = lu_.size();
  for (int step = 0; step < n; ++step) {
    // The largest remaining entry of the column as pivot keeps the multipliers at most 1 in size.
    int pivot = step;
    for (int i = step + 1; i < n; ++i)
      if (std::fabs(lu_(i, step)) > std::fabs(lu_(pivot, step))) pivot = i;
    if (lu_(pivot, step) == 0.0)
      throw ringcomm::Error("LU decomposition: the " + std::to_string(n) + "x" + std::to_string(n) +
                            " matrix is singular (column " + std::to_string(step) + ")");
    pivot_row_[step] = pivot;
    if (pivot != step) {
      permutation_sign_ = -permutation_sign_;
      for (int j = 0; j < n; ++j) std::swap(lu_(step, j), lu_(pivot, j));
    }
    const double inverse_pivot = 1.0 / lu_(step, step);
    for (int i = step + 1; i < n; ++i) lu_(i, step) *= inverse_pivot;
    for (int j = step + 1; j < n; ++j) {
      const double factor = lu_(step, j);
      if (factor == 0.0) continue;
      for (int i = step + 1; i < n; ++i) lu_(i, j) -= lu_(i, step) * factor;
    }
  }
}

int LuDecomposition::determinant_sign() const {
  int sign = permutation_sign_;
  for (int i = 0; i < lu_.size(); ++i)
    if (lu_(i, i) < 0) sign = -sign;
  return sign;
}

double LuDecomposition::log_abs_determinant() const {
  double sum = 0.0;
  for (int i = 0; i < lu_.size(); ++i) sum += std::log(std::fabs(lu_(i, i)));
  return sum;
}

void LuDecomposition::solve(std::vector<double>& b) const {
  const int n = lu_.size();
  for (int step = 0; step < n; ++step) std::swap(b[step], b[pivot_row_[step]]);
  for (int j = 0; j < n; ++j)  // L·y = P·b, column by column
    for (int i = j + 1; i < n; ++i) b[i] -= lu_(i, j) * b[j];
  for (int j = n - 1; j >= 0; --j) {  // U·x = y
    b[j] /= lu_(j, j);
    for (int i = 0; i < j; ++i) b[i] -= lu_(i, j) * b[j];
  }
}

Matrix LuDecomposition::inverse() const {
  const int n = lu_.size();
  Matrix inverse(n);
  std::vector<double> column(n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) column[i] = i == j ? 1.0 : 0.0;
    solve(column);
    for (int i = 0; i < n; ++i) inverse(i, j) = column[i];
  }
  return inverse;
}

}  // namespace mini_qmc
