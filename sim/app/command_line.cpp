#include "sim/app/command_line.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return std::nullopt;
}

int run_command_reporting_errors(const std::string& program, const std::function<int()>& command,
                                 const std::function<std::optional<std::string>()>& more_input_errors) {
  try {
    return command();
  } catch (const Interrupted& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return e.exit_code();
  } catch (const ConfigError& e) {
    std::cerr << e.what() << '\n';
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": " << e.what() << '\n';
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << program << ": " << e.what() << '\n';
  } catch (const std::exception& e) {
    const std::optional<std::string> input_error = more_input_errors ? more_input_errors() : std::nullopt;
    if (!input_error) {
      std::cerr << program << ": " << e.what() << '\n';
      return 1;
    }
    std::cerr << program << ": " << *input_error << '\n';
  }
  return 2;
}

}  // namespace edgetwin
