// A fuzz target's entry point run once on each file named (a file, or a
// folder of them), without libFuzzer: every build replays the seed corpus
// through each reader's target (tests/CMakeLists.txt, label fuzz), with any
// compiler, and the sanitizer stage replays it under ASan and UBSan.
// tests/fuzz/run_fuzz.sh fuzzes the same targets with libFuzzer.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return 1;
  }
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0, failed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file()) {
          failed += replay(entry.path());
          ++files;
        }
    } else {
      failed += replay(path);
      ++files;
    }
  }
  std::printf("replayed %d inputs\n", files);
  // No input at all is a broken corpus, not a pass.
  return files == 0 || failed ? 1 : 0;
}
