// Places where writing fails, for tests of what a program leaves behind: a full file system
// (a tiny tmpfs filled to the brim where this process may mount one, and a file-size limit
// everywhere), and a directory that cannot be written.
#pragma once

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_files.hpp"

namespace edgetwin::test_support {

// A 16 KiB tmpfs whose every byte is taken: the next write fails with ENOSPC. mounted() is
// false where mounting is not allowed (not root, or no CAP_SYS_ADMIN in a container).
class FullFilesystem {
 public:
  FullFilesystem() {
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, "size=16k,mode=0777") != 0) return;
    mounted_ = true;
    std::ofstream fill(dir_.path() / "fill", std::ios::binary);
    const std::string block(4096, 'x');
    for (int i = 0; i < 64 && fill.write(block.data(), static_cast<std::streamsize>(block.size())); ++i) {
    }
  }
  ~FullFilesystem() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  FullFilesystem(const FullFilesystem&) = delete;
  FullFilesystem& operator=(const FullFilesystem&) = delete;

  bool mounted() const { return mounted_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_.path() / name; }
  // Entries other than the filler: what a program left behind.
  int leftovers() const {
    int count = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      if (e.path().filename() != "fill") ++count;
    return count;
  }

 private:
  TempDir dir_{"edgetwin-full"};
  bool mounted_ = false;
};

// A directory nothing can be created in: mode 0555 for a user; root writes anywhere, so for
// root a read-only tmpfs where mounting is allowed. usable() is false when neither works.
class ReadOnlyDirectory {
 public:
  ReadOnlyDirectory() {
    if (::geteuid() != 0) {
      usable_ = ::chmod(dir_.path().c_str(), 0555) == 0;
      return;
    }
    mounted_ = ::mount("tmpfs", dir_.path().c_str(), "tmpfs", MS_RDONLY, "size=16k") == 0;
    usable_ = mounted_;
  }
  ~ReadOnlyDirectory() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
    ::chmod(dir_.path().c_str(), 0700);
  }
  ReadOnlyDirectory(const ReadOnlyDirectory&) = delete;
  ReadOnlyDirectory& operator=(const ReadOnlyDirectory&) = delete;

  bool usable() const { return usable_; }
  const std::filesystem::path& path() const { return dir_.path(); }

 private:
  TempDir dir_{"edgetwin-readonly"};
  bool mounted_ = false;
  bool usable_ = false;
};

// The command line run so that no file it writes may grow past 1 KiB (writes fail with EFBIG,
// SIGXFSZ ignored as a program on a full disk would never see it): a full disk that needs no
// privilege. Pipes (its standard output) are not limited.
inline std::string with_file_size_limit(const std::string& command) {
  return "bash -c \"trap '' XFSZ; ulimit -f 1; exec " + command + "\"";
}

}  // namespace edgetwin::test_support
