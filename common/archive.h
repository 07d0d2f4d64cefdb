#ifndef BBO_COMMON_ARCHIVE_H_
#define BBO_COMMON_ARCHIVE_H_

// Submission archives (libarchive). A submission travels as an uncompressed tar of its folder;
// participants may upload a .tar, .tar.gz or .zip. Extraction refuses anything that could
// escape the destination (absolute paths, "..", links, devices) and bounds size and entry count.
// Thread-safe (no shared state).

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bbo {

struct ExtractOptions {
  // Largest total size of the extracted files, bytes.
  int64_t max_total_bytes = 256ll << 20;
  // Most entries (files and folders).
  int max_entries = 10000;
};

// Packs the regular files and folders under `dir` (relative paths, permission bits kept,
// symlinks and special files skipped) into an uncompressed POSIX tar. InvalidArgument when
// `dir` is not a folder or the content exceeds 256 MiB.
absl::StatusOr<std::string> TarDirectory(const std::string& dir);

// Extracts a tar / tar.gz / zip held in memory into `dest_dir` (created). When the archive
// holds exactly one top-level folder and nothing else, its contents are extracted instead (so
// an archive of "my-optimizer/…" works). InvalidArgument naming the entry for unsafe or
// oversized content, or when the bytes are not an archive.
absl::Status ExtractArchive(std::string_view bytes, const std::string& dest_dir,
                            const ExtractOptions& options);

}  // namespace bbo

#endif  // BBO_COMMON_ARCHIVE_H_
