#pragma once
// The little dense linear algebra a determinant QMC walker needs: real square matrices, products,
// diagonal scalings, and an LU decomposition with partial pivoting for inverses and determinants.
// Sizes are the number of cluster sites (tens), so plain loops are fast enough and easy to check.
#include <vector>

namespace mini_qmc {

// Column-major: entry (row, col) at row + n·col.
class Matrix {
 public:
  explicit Matrix(int n = 0, double fill = 0.0);
  static Matrix identity(int n);

  int size() const { return n_; }
  double& operator()(int row, int col) { return values_[row + static_cast<std::size_t>(n_) * col]; }
  double operator()(int row, int col) const { return values_[row + static_cast<std::size_t>(n_) * col]; }

  Matrix& operator+=(const Matrix& other);
  Matrix& operator-=(const Matrix& other);

 private:
  int n_;
  std::vector<double> values_;
};

Matrix operator*(const Matrix& left, const Matrix& right);
Matrix operator-(Matrix left, const Matrix& right);
Matrix operator+(Matrix left, const Matrix& right);

// diag(d)·a and a·diag(d): how the auxiliary-field factors e^{±V} enter.
Matrix scale_rows(const std::vector<double>& d, const Matrix& a);
Matrix scale_columns(const Matrix& a, const std::vector<double>& d);

// max |a_ij − b_ij|
double max_abs_difference(const Matrix& a, const Matrix& b);

// P·A = L·U with L unit lower triangular; throws ringcomm::Error when A is singular.
class LuDecomposition {
 public:
  explicit LuDecomposition(Matrix a);

  int determinant_sign() const;           // +1 or −1
  double log_abs_determinant() const;     // ln |det A|
  Matrix inverse() const;

 private:
  // Solves A·x = b in place.
  void solve(std::vector<double>& b) const;

  Matrix lu_;                 // U on and above the diagonal, L below it
  std::vector<int> pivot_row_;  // row swapped with row j at step j
  int permutation_sign_ = 1;
};

}  // namespace mini_qmc
