#include "atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace edgewise_cli {

namespace {

constexpr const char* kTempSuffix = ".edgewise-XXXXXX";

// Named temporary files, for the signal handler to remove: a fixed table
// of path buffers, so the handler needs no locks or allocation (only
// unlink, which is async-signal-safe). A name is made only inside its slot
// (mkstemp fills the template there), so a handler that interrupts the
// creation on its own thread still finds the name; a handler on another
// thread stops new creations and waits for those in flight, so no name is
// made after it has looked.
constexpr int kTempSlots = 16;
struct TempSlot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> may_exist{false};
  char path[PATH_MAX];
};
TempSlot g_temp_slots[kTempSlots];
std::atomic<int> g_creating{0};
std::atomic<bool> g_dying{false};

}  // namespace

void stop_for_test_at(const char* moment) {
  static const char* const wanted = std::getenv("EDGEWISE_STOP_AT");
  if (!wanted || std::strcmp(wanted, moment) != 0) return;
  // The test signals this thread (tgkill), so that the handler runs here,
  // at this moment: a signal to the process may be taken by another thread
  // while this one goes on writing (seen: a rename, or the exit, first).
  std::fprintf(stderr, "edgewise: stopped for a test at %s, thread %ld\n", moment, long(syscall(SYS_gettid)));
  raise(SIGSTOP);
}

namespace {

long elapsed_ns(const timespec& start) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
}

extern "C" void remove_temp_files_and_die(int signal_number) {
  g_dying.store(true);
  // A creation on another thread takes a few system calls; one this
  // handler interrupted would never finish, hence the bound (100 ms).
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (g_creating.load() > 0 && elapsed_ns(start) < 100000000L) {
  }
  for (TempSlot& slot : g_temp_slots)
    if (slot.may_exist.load()) unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// A write that failed after the signal handler began: its temporary file
// may have gone under it (the handler runs on whichever thread the signal
// reached), and the process is ending by that signal; an error message and
// exit status 1 would race it (seen with SIGHUP at the moment before the
// rename, tests/cli's CliFiles.Sig* tests).
void wait_if_dying() {
  if (g_dying.load())
    for (;;) pause();
}

// A temporary name beside a file: DIRECTORY/.NAME.edgewise-XXXXXX, removed
// by the signal handler from the moment it may exist until released.
class TempName {
 public:
  TempName(const std::string& directory, const std::string& name) {
    const std::string pattern = directory + "/." + name + kTempSuffix;
    for (TempSlot& slot : g_temp_slots) {
      bool expected = false;
      if (pattern.size() < sizeof slot.path && slot.claimed.compare_exchange_strong(expected, true)) {
        std::memcpy(slot.path, pattern.c_str(), pattern.size() + 1);
        slot_ = &slot;
        return;
      }
    }
    throw std::runtime_error("cannot write " + directory + "/" + name + ": too many files in progress");
  }
  ~TempName() {
    slot_->may_exist.store(false);
    slot_->claimed.store(false);
  }
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;

  // Runs make(path), which creates the name in place (mkstemp) and
  // returns a negative value with errno set when it fails.
  template <class Make>
  int create(Make make) {
    g_creating.fetch_add(1);
    if (g_dying.load()) {  // the handler has looked already; the process is ending
      g_creating.fetch_sub(1);
      for (;;) pause();
    }
    slot_->may_exist.store(true);
    const int result = make(slot_->path);
    const int error = errno;
    g_creating.fetch_sub(1);
    errno = error;
    return result;
  }
  std::string path() const { return slot_->path; }

 private:
  TempSlot* slot_ = nullptr;
};

// Overwrites the last six characters of NAME (the XXXXXX of kTempSuffix)
// with random letters and digits, as mkstemp does, without making a file.
void fill_unique_suffix(char* name) {
  static const char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<unsigned long> counter{0};
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  // splitmix64 of time, pid and a counter: distinct across processes and calls.
  unsigned long long x = (unsigned long long)now.tv_nsec ^ ((unsigned long long)now.tv_sec << 30) ^
                         ((unsigned long long)getpid() << 16) ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ULL);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  char* suffix = name + std::strlen(name) - 6;
  for (int i = 0; i < 6; ++i, x /= 62) suffix[i] = kLetters[x % 62];
}

std::string why_not_writable(const std::string& directory, int error) {
  struct stat info {};
  if (stat(directory.c_str(), &info) != 0) return "output directory " + directory + " does not exist";
  if (!S_ISDIR(info.st_mode)) return "output directory " + directory + " is not a directory";
  return "cannot write to directory " + directory + ": " + std::strerror(error);
}

// A result should look like any other new file (mkstemp makes 0600 ones),
// or keep the mode of the file it replaces.
mode_t mode_for(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return info.st_mode & 07777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

// Data on disk before a name makes it visible, so a crash cannot leave a
// complete-looking but empty file.
bool sync_path(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = fsync(fd) == 0;
  return close(fd) == 0 && ok;
}

[[noreturn]] void fail_write(const std::string& path, int error) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
}

// The unnamed way: the file has no name until it is complete, so nothing
// is left behind even by SIGKILL. Returns false where the file system
// does not offer O_TMPFILE.
bool write_unnamed(const std::string& path, const std::string& directory,
                   const std::function<void(const std::string&)>& write) {
  const int fd = open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode_for(path));
  if (fd < 0) {
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) return false;
    throw std::runtime_error(why_not_writable(directory, errno));
  }
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  // mode_for is what open gave, less the umask; a replaced file keeps its mode.
  const int chmod_error = fchmod(fd, mode_for(path)) == 0 ? 0 : errno;
  try {
    if (chmod_error) fail_write(path, chmod_error);
    stop_for_test_at("opened");
    write(self);  // the writers open the file again by this name
    if (fsync(fd) != 0) fail_write(path, errno);
    stop_for_test_at("written");
    // A new file gets its name in one step: link fails rather than
    // replace, so nothing else ever has a name, even under SIGKILL.
    struct stat existing {};
    if (lstat(path.c_str(), &existing) != 0 && errno == ENOENT) {
      if (linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        close(fd);
        stop_for_test_at("named");
        return true;
      }
      if (errno != EEXIST) throw std::runtime_error(why_not_writable(directory, errno));
    }
    // A file to replace: a temporary name, then renamed over the target,
    // which replaces it atomically (link cannot). The name is linked
    // directly, not made by mkstemp first, so it exists only between the
    // two calls; SIGKILL there is the one way to leave it behind.
    TempName temp(directory, file_name_of(path));
    const int linked = temp.create([&self](char* name) {
      for (int attempt = 0; attempt < 100; ++attempt) {
        fill_unique_suffix(name);
        const int result = linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name, AT_SYMLINK_FOLLOW);
        if (result == 0 || errno != EEXIST) return result;
      }
      return -1;  // errno is EEXIST
    });
    if (linked != 0) {
      const int error = errno;
      throw std::runtime_error(why_not_writable(directory, error));
    }
    stop_for_test_at("linked");
    if (std::rename(temp.path().c_str(), path.c_str()) != 0) {
      const int rename_error = errno;
      wait_if_dying();
      unlink(temp.path().c_str());
      fail_write(path, rename_error);
    }
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
  stop_for_test_at("named");
  return true;
}

void write_named(const std::string& path, const std::string& directory,
                 const std::function<void(const std::string&)>& write) {
  TempName temp(directory, file_name_of(path));
  const int fd = temp.create([](char* name) { return mkstemp(name); });
  if (fd < 0) {
    const int error = errno;
    throw std::runtime_error(why_not_writable(directory, error));
  }
  const int chmod_error = fchmod(fd, mode_for(path)) == 0 ? 0 : errno;
  close(fd);
  try {
    if (chmod_error) fail_write(path, chmod_error);
    stop_for_test_at("opened");
    write(temp.path());
    if (!sync_path(temp.path())) fail_write(path, errno);
    stop_for_test_at("written");
    if (std::rename(temp.path().c_str(), path.c_str()) != 0) fail_write(path, errno);
  } catch (...) {
    wait_if_dying();
    unlink(temp.path().c_str());
    throw;
  }
  stop_for_test_at("named");
}

}  // namespace

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string write_target(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
  char* resolved = realpath(path.c_str(), nullptr);
  if (!resolved) return path;  // a dangling link: replaced as a name, which is what the user named
  const std::string target = resolved;
  free(resolved);
  return target;
}

void check_directory_writable(const std::string& directory) {
  TempName probe(directory, "probe");
  const int fd = probe.create([](char* name) { return mkstemp(name); });
  if (fd < 0) {
    const int error = errno;
    throw std::runtime_error(why_not_writable(directory, error));
  }
  close(fd);
  unlink(probe.path().c_str());
}

void check_name_fits(const std::string& path) {
  const std::string name = file_name_of(path);
  long name_max = pathconf(directory_of(path).c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  // The temporary name beside it is ".NAME.edgewise-XXXXXX".
  const size_t needed = name.size() + 1 + std::strlen(kTempSuffix);
  if (needed > size_t(name_max))
    throw std::runtime_error("output name too long: " + name + " (" + std::to_string(name.size()) +
                             " bytes; this file system allows " + std::to_string(name_max - 1 - long(std::strlen(kTempSuffix))) +
                             " for a result, with room for the temporary name)");
}

void install_cleanup_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temp_files_and_die;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &action, nullptr);
}

void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write) {
  const std::string target = write_target(path);  // through a symlink, to what it points to
  const std::string directory = directory_of(target);
  // EDGEWISE_NAMED_TEMP=1, a test hook: the named way, as where the file
  // system has no O_TMPFILE, so that tests reach the signal handler's work.
  const char* named = std::getenv("EDGEWISE_NAMED_TEMP");
  if ((named && std::string(named) == "1") || !write_unnamed(target, directory, write))
    write_named(target, directory, write);
}

}  // namespace edgewise_cli
