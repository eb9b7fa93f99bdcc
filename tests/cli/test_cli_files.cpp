// What the CLI does to the user's files: a header declaring a huge image is
// refused at once and cheaply; no output may replace an input or another
// output unless asked; links are written through; names that cannot fit
// are refused before filtering; a signal leaves nothing behind; a batch
// writes every file it can, names the failures and says so in its status.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "cli_test_support.h"

namespace edgewise_cli_test {
namespace {

using edgewise_cli::read_image;
using edgewise_cli::write_image;

// A run of the binary itself (no shell), with its peak memory.
struct MeasuredRun {
  int status = -1;
  int signal = 0;        // the signal that ended it, 0 when it exited
  long max_rss_kib = 0;  // the child's own peak resident memory
  std::string err;
};

// Starts edgewise with args; stderr goes to err_path. Returns its pid.
pid_t start_cli(const std::vector<std::string>& args, const std::string& err_path) {
  std::vector<char*> argv;
  const std::string program = cli_program();
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err_path.c_str(), "w", stderr)) _exit(126);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

MeasuredRun finish_cli(pid_t pid, const std::string& err_path) {
  MeasuredRun run;
  int raw = 0;
  rusage usage{};
  wait4(pid, &raw, 0, &usage);
  run.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(raw)) run.status = WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) run.signal = WTERMSIG(raw);
  run.err = read_bytes(err_path);
  return run;
}

MeasuredRun run_measured(const std::vector<std::string>& args, const ScratchDir& logs) {
  const std::string err_path = logs.file("stderr.txt");
  return finish_cli(start_cli(args, err_path), err_path);
}

void put_big_endian(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += char((value >> shift) & 0xff);
}

void put_png_chunk(std::string& png, const char* type, const std::string& data) {
  put_big_endian(png, uint32_t(data.size()));
  const std::string typed = std::string(type, 4) + data;
  png += typed;
  put_big_endian(png, uint32_t(crc32(0, reinterpret_cast<const Bytef*>(typed.data()), uInt(typed.size()))));
}

// A well-formed PNG header declaring width x height RGBA 8-bit, followed by
// a few compressed rows and no more.
std::string png_bomb(uint32_t width, uint32_t height) {
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put_big_endian(header, width);
  put_big_endian(header, height);
  header += std::string("\x08\x06\x00\x00\x00", 5);  // 8-bit RGBA, deflate, no interlace
  put_png_chunk(png, "IHDR", header);
  std::string rows(size_t(width) * 4 + 1, '\0');
  rows += rows;
  uLongf packed_size = compressBound(uLong(rows.size()));
  std::string packed(packed_size, '\0');
  compress(reinterpret_cast<Bytef*>(&packed[0]), &packed_size, reinterpret_cast<const Bytef*>(rows.data()),
           uLong(rows.size()));
  packed.resize(packed_size);
  put_png_chunk(png, "IDAT", packed);
  put_png_chunk(png, "IEND", "");
  return png;
}

// A TIFF declaring width x height RGB 8-bit in one strip of 16 bytes.
void write_tiff_bomb(const std::string& path, uint32_t width, uint32_t height) {
  TIFF* tiff = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(tiff, nullptr);
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, height);
  const std::string data(16, '\x40');
  TIFFWriteRawStrip(tiff, 0, const_cast<char*>(data.data()), tmsize_t(data.size()));
  TIFFClose(tiff);
}

// A real 16x16 JPEG with its frame header patched to declare width x height.
std::string jpeg_bomb(const ScratchDir& dir, uint16_t width, uint16_t height) {
  DecodedImage small = photo(3, 8);
  small.width = small.height = 16;
  small.allocate();
  write_image(dir.file("small.jpg"), FileFormat::jpeg, small);
  std::string jpeg = read_bytes(dir.file("small.jpg"));
  const size_t frame = jpeg.find("\xff\xc0");
  if (frame == std::string::npos) return "";
  // FFC0, length (2), precision (1), height (2), width (2).
  jpeg[frame + 5] = char(height >> 8);
  jpeg[frame + 6] = char(height & 0xff);
  jpeg[frame + 7] = char(width >> 8);
  jpeg[frame + 8] = char(width & 0xff);
  return jpeg;
}

// Each bomb is refused from its header: with little memory, one
// line naming the declared size and the limit, nothing written.
TEST(CliFiles, BombsRefusedFromTheHeader) {
  ScratchDir dir, out, logs;
  write_bytes(dir.file("bomb.png"), png_bomb(16000, 1000000));
  write_tiff_bomb(dir.file("bomb.tif"), 100000, 95000);
  write_bytes(dir.file("bomb.jpg"), jpeg_bomb(dir, 60000, 50000));
  struct Bomb {
    std::string name, declared;
  };
  for (const Bomb& bomb :
       {Bomb{"bomb.png", "16000x1000000"}, Bomb{"bomb.tif", "100000x95000"}, Bomb{"bomb.jpg", "60000x50000"}}) {
    SCOPED_TRACE(bomb.name + " (" + std::to_string(read_bytes(dir.file(bomb.name)).size()) + " bytes)");
    const MeasuredRun run = run_measured({dir.file(bomb.name), "-o", out.file("result.tif")}, logs);
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(line_count(run.err), 1) << run.err;
    EXPECT_NE(run.err.find(bomb.declared), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--max-pixels"), std::string::npos) << run.err;
    // Refused from the header, checked by what happened, not how long it
    // took: the message names the declared size and the limit (only the
    // size check says that), and the declared pixels (gigabytes) were
    // never allocated and touched.
    EXPECT_LT(run.max_rss_kib, 100 * 1024);
    EXPECT_EQ(out.entries(), std::vector<std::string>{});
  }
}

// Past a raised limit, a file that lies about its size costs its data, not
// its declared size: the pixel memory is reserved, never touched.
TEST(CliFiles, LyingFileCostsItsDataNotItsDeclaredSize) {
  ScratchDir dir, out, logs;
  write_bytes(dir.file("lying.png"), png_bomb(30000, 30000));  // 3.6 GB declared
  const MeasuredRun run =
      run_measured({"--max-pixels", "2000000000", dir.file("lying.png"), "-o", out.file("result.png")}, logs);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(line_count(run.err), 1) << run.err;
  EXPECT_NE(run.err.find("lying.png"), std::string::npos) << run.err;
  // Under AddressSanitizer (CI's second stage) the allocation's shadow
  // memory is written, an eighth of the 3.6 GB: the sanitizer's memory,
  // not the CLI's. The bound is checked in the plain build.
  if (!std::getenv("ASAN_OPTIONS")) {
    EXPECT_LT(run.max_rss_kib, 100 * 1024);
  }
  EXPECT_EQ(out.entries(), std::vector<std::string>{});
}

// Memory the machine cannot give (here a 1 GiB address-space limit) is
// reported as such, naming the file and what it needs; nothing is written.
TEST(CliFiles, OutOfMemoryNamesTheFileAndTheSize) {
  if (std::getenv("ASAN_OPTIONS"))
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space; an address-space limit stops it first";
  ScratchDir dir, out;
  write_bytes(dir.file("big.png"), png_bomb(30000, 30000));  // 3.6 GB of pixels, within the raised limit
  const CliResult result =
      run_cli("--max-pixels 2000000000 " + dir.file("big.png") + " -o " + out.file("r.png"), "ulimit -v 1048576;");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(line_count(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("not enough memory for " + dir.file("big.png") + " (30000x30000 needs about"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(out.entries(), std::vector<std::string>{});
}

// Runs that would destroy a file the user did not ask to replace: refused
// before anything is read, one line, every file as it was.
TEST(CliFiles, CollisionsRefusedWithNothingWritten) {
  ScratchDir dir, results;
  write_image(dir.file("a.png"), FileFormat::png, photo(3, 8));
  write_image(dir.file("b.png"), FileFormat::png, photo(1, 8));
  write_image(results.file("old.png"), FileFormat::png, photo(1, 8));
  write_image(results.file("a.png"), FileFormat::png, photo(1, 8));  // a second input named a.png
  ASSERT_EQ(symlink(dir.file("a.png").c_str(), results.file("link-to-a.png").c_str()), 0);
  const std::string a = dir.file("a.png"), b = dir.file("b.png");
  const std::string a_bytes = read_bytes(a), b_bytes = read_bytes(b), old_bytes = read_bytes(results.file("old.png")),
                    other_a_bytes = read_bytes(results.file("a.png"));
  const std::vector<std::string> dir_entries = dir.entries(), result_entries = results.entries();
  struct Case {
    std::string name, args, words;
  };
  const std::vector<Case> cases = {
      {"sigma map over the input", "--filter adaptive --write-sigma " + a + " " + a + " -o " + results.file("r.png"),
       "the sigma image " + a + " would replace the input " + a},
      {"sigma map over the result",
       "--filter adaptive --write-sigma " + results.file("r.png") + " " + a + " -o " + results.file("r.png"),
       "would replace the result"},
      {"output is the input", a + " -o " + a, "would replace the input " + a + "; give --overwrite"},
      {"output is the input by another name",
       a + " -o " + dir.path() + "/../" + edgewise_cli::file_name_of(dir.path()) + "/a.png", "give --overwrite"},
      {"output is a link to the input", a + " -o " + results.file("link-to-a.png"), "give --overwrite"},
      {"output directory holds the inputs", a + " " + b + " -o " + dir.path(), "give --overwrite"},
      {"another job's input", a + " " + results.file("a.png") + " -o " + results.path() + " --overwrite",
       "would replace the input " + results.file("a.png") + " before it is read"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ": edgewise " + c.args);
    const CliResult result = run_cli(c.args);
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_NE(result.err.find(c.words), std::string::npos) << result.err;
    EXPECT_EQ(read_bytes(a), a_bytes);
    EXPECT_EQ(read_bytes(b), b_bytes);
    EXPECT_EQ(read_bytes(results.file("old.png")), old_bytes);
    EXPECT_EQ(read_bytes(results.file("a.png")), other_a_bytes);
    EXPECT_EQ(dir.entries(), dir_entries);
    EXPECT_EQ(results.entries(), result_entries);
  }
}

// With --overwrite, results replace their own inputs, in a directory too.
TEST(CliFiles, OverwriteReplacesOwnInputs) {
  ScratchDir dir;
  const DecodedImage a = photo(3, 8), b = photo(1, 16);
  write_image(dir.file("a.png"), FileFormat::png, a);
  write_image(dir.file("b.tif"), FileFormat::tiff, b);
  const CliResult result = run_cli(std::string(kFilterArgs) + " --overwrite " + dir.file("a.png") + " " +
                                   dir.file("b.tif") + " -o " + dir.path());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"a.png", "b.tif"}));
  EXPECT_LE(max_error_in_codes(read_image(dir.file("a.png")), engine_result(a, filter_args_spec())), 0.51);
  EXPECT_LE(max_error_in_codes(read_image(dir.file("b.tif")), engine_result(b, filter_args_spec())), 0.51);
}

// An output that is a symbolic link: the file it points to is replaced
// and keeps its mode; the link stays a link.
TEST(CliFiles, SymlinkedOutputWrittenThrough) {
  ScratchDir dir, library;
  const DecodedImage input = photo(3, 8);
  write_image(dir.file("in.png"), FileFormat::png, input);
  write_image(library.file("kept.png"), FileFormat::png, photo(1, 8));
  ASSERT_EQ(chmod(library.file("kept.png").c_str(), 0640), 0);
  ASSERT_EQ(symlink(library.file("kept.png").c_str(), dir.file("out.png").c_str()), 0);
  const CliResult result = run_cli(std::string(kFilterArgs) + " " + dir.file("in.png") + " -o " + dir.file("out.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  struct stat link_info {};
  ASSERT_EQ(lstat(dir.file("out.png").c_str(), &link_info), 0);
  EXPECT_TRUE(S_ISLNK(link_info.st_mode));
  EXPECT_EQ(file_mode(library.file("kept.png")), mode_t(0640));
  EXPECT_EQ(library.entries(), std::vector<std::string>{"kept.png"});
  EXPECT_LE(max_error_in_codes(read_image(library.file("kept.png")), engine_result(input, filter_args_spec())), 0.51);
}

// A name that fits as an input but leaves no room for the temporary name
// beside the output is refused before any filtering, naming the limit.
TEST(CliFiles, LongNamesCheckedBeforeFiltering) {
  ScratchDir dir, out;
  const std::string name = std::string(245, 'n') + ".png";
  write_image(dir.file(name), FileFormat::png, photo(3, 8));
  const CliResult result = run_cli("--radius 128 " + dir.file(name) + " -o " + out.path());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(line_count(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("output name too long"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("%"), std::string::npos) << "filtering started: " << result.err;
  EXPECT_EQ(out.entries(), std::vector<std::string>{});
}

// A batch writes each file it can, names the failures in a summary and
// exits 1; --fail-fast stops at the first failure.
TEST(CliFiles, BatchWritesWhatItCanAndNamesFailures) {
  ScratchDir dir, out;
  write_image(dir.file("a.png"), FileFormat::png, photo(3, 8));
  write_image(dir.file("c.tif"), FileFormat::tiff, photo(1, 8));
  const std::string jpeg = [&] {
    write_image(dir.file("b.jpg"), FileFormat::jpeg, photo(3, 8));
    return read_bytes(dir.file("b.jpg"));
  }();
  write_bytes(dir.file("b.jpg"), jpeg.substr(0, jpeg.size() / 2));
  const std::string inputs = dir.file("a.png") + " " + dir.file("b.jpg") + " " + dir.file("c.tif");

  const CliResult batch = run_cli(inputs + " -o " + out.path());
  EXPECT_EQ(batch.status, 1);
  EXPECT_EQ(out.entries(), (std::vector<std::string>{"a.png", "c.tif"}));
  EXPECT_NE(batch.err.find("b.jpg: unreadable JPEG"), std::string::npos) << batch.err;
  EXPECT_NE(batch.err.find("edgewise: 1 of 3 files failed: " + dir.file("b.jpg") + "\n"), std::string::npos)
      << batch.err;

  ScratchDir fast;
  const CliResult stopped =
      run_cli("--fail-fast " + dir.file("b.jpg") + " " + dir.file("a.png") + " -o " + fast.path());
  EXPECT_EQ(stopped.status, 1);
  EXPECT_EQ(fast.entries(), std::vector<std::string>{});
  EXPECT_NE(stopped.err.find("1 of 2 files failed: " + dir.file("b.jpg") + "; --fail-fast stopped the rest"),
            std::string::npos)
      << stopped.err;
}

// The names beside out.png, space-separated: empty when nothing was left.
std::string left_behind(const ScratchDir& dir) {
  std::string names;
  for (const auto& name : dir.entries())
    if (name != "out.png") names += (names.empty() ? "" : " ") + name;
  return names;
}

// A moment of a write where EDGEWISE_STOP_AT (cli/atomic_file.h) stops the
// CLI, and what the output must be after a signal there: absent (or, when
// the run replaces a file, the old file), or the new file complete.
struct Moment {
  const char* name;
  bool replaces;        // out.png exists before the run
  bool complete_after;  // the new file has its name at this moment
};

// Signals at every moment of a write: the CLI stops itself there
// (SIGSTOP), the signal is sent, the CLI continues into it. Afterwards the
// output is absent, the file it replaced, or complete, and nothing else is
// there; every run must end by the signal. EDGEWISE_NAMED_TEMP=1 makes the
// CLI use a named temporary file, as on file systems without O_TMPFILE,
// whose removal is the handler's work. The unnamed way gives a replaced
// file a hidden name between link and rename ("linked"), which SIGKILL
// alone leaves behind (atomic_file.cpp): that one moment is not asked of
// SIGKILL.
void interrupt_at_every_moment(int signal_number, bool named_temp) {
  ScratchDir dir, out, logs;
  DecodedImage big = photo(3, 16);
  {
    // 4x the photo's area by tiling: uncompressed, more than one 1 MiB
    // IDAT chunk, so that the PNG writer has a "mid-write" moment.
    DecodedImage tiled = big;
    tiled.width *= 2;
    tiled.height *= 2;
    tiled.allocate();
    for (int y = 0; y < tiled.height; ++y)
      for (int half = 0; half < 2; ++half)
        std::memcpy(tiled.bytes.data() + size_t(y) * tiled.row_bytes() + half * big.row_bytes(),
                    big.bytes.data() + size_t(y % big.height) * big.row_bytes(), big.row_bytes());
    big = std::move(tiled);
  }
  ASSERT_GT(big.bytes.size(), size_t(1) << 20);
  write_image(dir.file("in.tif"), FileFormat::tiff, big);
  if (named_temp) setenv("EDGEWISE_NAMED_TEMP", "1", 1);
  const std::vector<std::string> args = {"--radius",         "1",  "--png-compression", "0",
                                         dir.file("in.tif"), "-o", out.file("out.png")};
  const MeasuredRun whole = run_measured(args, logs);
  ASSERT_EQ(whole.status, 0) << whole.err;
  const std::string complete = read_bytes(out.file("out.png"));
  const std::string old_file = "an older out.png";

  std::vector<Moment> moments;
  for (bool replaces : {false, true}) {
    moments.push_back({"opened", replaces, false});
    moments.push_back({"mid-write", replaces, false});
    moments.push_back({"written", replaces, false});
    if (replaces && !named_temp && signal_number != SIGKILL) moments.push_back({"linked", true, false});
    moments.push_back({"named", replaces, true});
  }
  int interrupted = 0;
  for (const Moment& moment : moments) {
    SCOPED_TRACE(std::string("signal at \"") + moment.name + "\"" + (moment.replaces ? ", replacing a file" : ""));
    std::remove(out.file("out.png").c_str());
    if (moment.replaces) write_bytes(out.file("out.png"), old_file);
    setenv("EDGEWISE_STOP_AT", moment.name, 1);
    const pid_t pid = start_cli(args, logs.file("stderr.txt"));
    unsetenv("EDGEWISE_STOP_AT");
    int raw = 0;
    ASSERT_EQ(waitpid(pid, &raw, WUNTRACED), pid);
    if (!WIFSTOPPED(raw)) {
      ADD_FAILURE() << "the CLI never reached the moment (exit status " << (WIFEXITED(raw) ? WEXITSTATUS(raw) : -1)
                    << "): " << read_bytes(logs.file("stderr.txt"));
      continue;
    }
    // With a named temporary the moment shows in its size: empty when
    // opened, part of the data mid-write, all of it when written.
    const std::string step = moment.name;
    if (named_temp && (step == "opened" || step == "mid-write" || step == "written")) {
      size_t temp_size = 0;
      int temps = 0;
      for (const std::string& name : out.entries())
        if (name != "out.png") {
          ++temps;
          temp_size = read_bytes(out.file(name)).size();
        }
      EXPECT_EQ(temps, 1) << "one temporary file while stopped";
      const size_t expected_least = step == "opened" ? 0 : step == "mid-write" ? 1 : complete.size();
      const size_t expected_most = step == "opened" ? 0 : step == "mid-write" ? complete.size() - 1 : complete.size();
      EXPECT_GE(temp_size, expected_least) << "the temporary file's size while stopped";
      EXPECT_LE(temp_size, expected_most) << "the temporary file's size while stopped";
    }
    // To the thread that stopped (the hook names it), so that the handler
    // runs at this moment rather than on a thread that wakes later.
    const std::string said = read_bytes(logs.file("stderr.txt"));
    const std::string mark = std::string("stopped for a test at ") + moment.name + ", thread ";
    const size_t at = said.find(mark);
    ASSERT_NE(at, std::string::npos) << said;
    const long thread = std::strtol(said.c_str() + at + mark.size(), nullptr, 10);
    ASSERT_EQ(syscall(SYS_tgkill, pid, thread, signal_number), 0) << std::strerror(errno);
    if (signal_number != SIGKILL) kill(pid, SIGCONT);  // the pending signal is delivered as it continues
    const MeasuredRun run = finish_cli(pid, logs.file("stderr.txt"));
    EXPECT_EQ(run.signal, signal_number) << "exit status " << run.status << ": " << run.err;
    if (run.signal == signal_number) ++interrupted;
    EXPECT_EQ(left_behind(out), "") << "left behind";
    if (moment.complete_after) {
      EXPECT_TRUE(read_bytes(out.file("out.png")) == complete) << "a partial output";
    } else if (moment.replaces) {
      EXPECT_TRUE(read_bytes(out.file("out.png")) == old_file) << "the replaced file changed";
    } else {
      EXPECT_FALSE(exists(out.file("out.png"))) << "an output before its data was complete";
    }
  }
  unsetenv("EDGEWISE_NAMED_TEMP");
  EXPECT_EQ(interrupted, int(moments.size())) << "runs the signal did not end";
  EXPECT_GE(moments.size(), size_t(8));
}

TEST(CliFiles, SigintLeavesNothing) { interrupt_at_every_moment(SIGINT, false); }
TEST(CliFiles, SigintLeavesNothingWithNamedTemporary) { interrupt_at_every_moment(SIGINT, true); }
TEST(CliFiles, SigtermAndSighupLeaveNothingWithNamedTemporary) {
  interrupt_at_every_moment(SIGTERM, true);
  interrupt_at_every_moment(SIGHUP, true);
}
TEST(CliFiles, SigkillLeavesNothing) { interrupt_at_every_moment(SIGKILL, false); }

}  // namespace
}  // namespace edgewise_cli_test
