#include "sim/app/gnuplot.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "sim/app/output_file.hpp"
#include "sim/app/termination.hpp"

namespace edgetwin {
namespace {

// How the two formats edgetwin draws end: a PNG with its IEND chunk, an SVG with its closing
// tag. A figure cut short by a full disk ends otherwise.
bool ends_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const auto size = static_cast<std::streamoff>(in.tellg());
  if (!in || size < 8) return false;
  const std::streamoff tail = std::min<std::streamoff>(size, 64);
  std::string end(static_cast<std::size_t>(tail), '\0');
  in.seekg(size - tail);
  in.read(end.data(), tail);
  const std::string png_end("IEND\xae\x42\x60\x82", 8);
  return end.ends_with(png_end) || end.find("</svg>") != std::string::npos;
}

// Writes the whole script to gnuplot's stdin; a gnuplot that died early shows in its status.
void write_script(int fd, const std::string& script) {
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);  // EPIPE instead of dying when gnuplot is gone
  std::string_view rest = script;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
}

[[noreturn]] void exec_gnuplot(int script_fd, pid_t parent) {
  forget_parent_termination_state();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(127);
  ::dup2(script_fd, STDIN_FILENO);
  ::close(script_fd);
  ::execlp("gnuplot", "gnuplot", static_cast<char*>(nullptr));
  _exit(127);
}

// gnuplot's exit status: 127 when it could not be started.
int run_gnuplot(const std::string& script) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw OutputError(fmt::format("cannot start gnuplot: {}", std::strerror(errno)));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw OutputError(fmt::format("cannot start gnuplot: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[1]);
    exec_gnuplot(fds[0], parent);
  }
  register_child(pid);
  ::close(fds[0]);
  write_script(fds[1], script);
  ::close(fds[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  unregister_child(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string figure_script(const Figure& figure, const std::filesystem::path& file) {
  return fmt::format("set terminal {}\nset output {}\n$data << EOD\n{}EOD\n{}unset output\n", figure.terminal,
                     gnuplot_quoted(file.string()), figure.data, figure.commands);
}

void draw_figure(const std::filesystem::path& output, const Figure& figure) {
  OutputFile file(output);
  const int code = run_gnuplot(figure_script(figure, file.temporary()));
  if (code == 127) throw OutputError(fmt::format("{}: gnuplot not found (install gnuplot-nox)", output.string()));
  if (code != 0) throw OutputError(fmt::format("{}: gnuplot failed (exit status {})", output.string(), code));
  if (!ends_whole(file.temporary())) {
    throw OutputError(fmt::format("{}: cannot write: gnuplot left the figure incomplete (a full disk?)", output.string()));
  }
  file.commit();
}

}  // namespace edgetwin
