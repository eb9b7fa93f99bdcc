#include "memory_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace edgewise_fuzz {

namespace {

// A failure here is the machine's, not the input's: stop with the reason
// rather than let libFuzzer file it as a crash of the reader.
[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "edgewise fuzz: %s: %s\n", what, std::strerror(errno));
  std::_Exit(2);
}

}  // namespace

MemoryFile::MemoryFile() {
  fd_ = memfd_create("edgewise-fuzz-input", MFD_CLOEXEC);
  if (fd_ < 0) fail("memfd_create");
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemoryFile::~MemoryFile() {
  if (fd_ >= 0) close(fd_);
}

void MemoryFile::assign(const uint8_t* data, size_t size) {
  if (ftruncate(fd_, 0) != 0) fail("ftruncate");
  size_t done = 0;
  while (done < size) {
    const ssize_t written = pwrite(fd_, data + done, size - done, off_t(done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) fail("pwrite");
    done += size_t(written);
  }
}

}  // namespace edgewise_fuzz
