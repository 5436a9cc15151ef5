// Must NOT compile: a consume functor that reads doubles from a session whose messages are bytes.
// tests/session_tests.cmake builds it and passes when the compiler stops with the session's own
// message, so a wrong element type is caught at build time instead of misreading memory at run time.
#include <ringcomm/ringcomm.hpp>

int main(int argc, char** argv) {
  return ringcomm::run(argc, argv, [](ringcomm::Session& session) {
    auto& messages = session.messages<unsigned char>(16);
    messages.run(
        1, [](const Kokkos::View<unsigned char*, Kokkos::MemoryUnmanaged>&, const ringcomm::ProduceContext&) {},
        [](const Kokkos::View<const double*, Kokkos::MemoryUnmanaged>&, const ringcomm::ConsumeContext&) {});
    return 0;
  });
}
