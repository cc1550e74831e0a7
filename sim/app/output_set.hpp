// Writes a set of files into one directory whole or not at all as a set: plan-round's
// --client-configs, one plan per device, which an FL deployment reads together.
//
// Contract: write_output_set(dir, files) writes every file into a staging directory beside dir,
// ".<dir's name>.edgetwin-<pid>.tmpdir", then moves the set into place: by renaming the staging
// directory when dir does not exist (atomic), else file by file (renames only, no data is
// written then). SIGINT, SIGTERM and SIGHUP are held back while it runs and act once the set is
// in place (exit 130, 143, 129 with the whole set written). After a SIGKILL while the files
// were written, dir is untouched and only the staging directory is left; the next call removes
// staging directories whose process is gone. Any failure throws OutputError naming the path
// and the operating system's reason, and leaves dir as it was (its staging directory removed).
// The names in files are plain file names (no '/'), checked before anything is written.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace edgetwin {

void write_output_set(const std::filesystem::path& dir, const std::map<std::string, std::string>& files);

// The staging directory write_output_set would use for dir in this process.
std::filesystem::path staging_directory_of(const std::filesystem::path& dir);

}  // namespace edgetwin
