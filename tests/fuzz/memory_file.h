// The fuzzer's bytes as a file that the readers open by name, kept in
// memory (memfd_create, reached as /proc/self/fd/N): nothing touches the
// disk, and one file serves every input, so an input costs a truncate and
// a write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace edgewise_fuzz {

class MemoryFile {
 public:
  MemoryFile();
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  // Replaces the contents. Each open() of path() starts at offset 0.
  void assign(const uint8_t* data, size_t size);
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace edgewise_fuzz
