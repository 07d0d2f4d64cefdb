#include "common/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxTarBytes = 256ll << 20;

struct ReadDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
struct WriteDeleter {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

absl::Status ArchiveError(struct archive* a, absl::string_view what) {
  const char* msg = archive_error_string(a);
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", msg ? msg : "unknown error"));
}

// Splits a relative archive path into components; rejects unsafe ones.
absl::StatusOr<std::vector<std::string>> SafeComponents(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("archive entry with an empty name");
  if (path[0] == '/') {
    return absl::InvalidArgumentError(absl::StrCat("archive entry \"", path,
                                                   "\" has an absolute path"));
  }
  std::vector<std::string> parts;
  for (const auto& part : fs::path(path)) {
    std::string s = part.string();
    if (s.empty() || s == ".") continue;
    if (s == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("archive entry \"", path, "\" leaves the submission folder (\"..\")"));
    }
    parts.push_back(s);
  }
  return parts;
}

struct Entry {
  std::vector<std::string> parts;
  bool dir = false;
  mode_t mode = 0644;
  std::string data;
};

}  // namespace

absl::StatusOr<std::string> TarDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, " is not a folder"));
  }
  std::string out;
  std::unique_ptr<struct archive, WriteDeleter> a(archive_write_new());
  archive_write_set_format_pax_restricted(a.get());
  archive_write_set_bytes_in_last_block(a.get(), 1);
  auto writer = [](struct archive*, void* user, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(user)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  if (archive_write_open(a.get(), &out, nullptr, writer, nullptr) != ARCHIVE_OK) {
    return ArchiveError(a.get(), "tar");
  }
  std::vector<fs::path> paths;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    paths.push_back(it->path());
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
  std::sort(paths.begin(), paths.end());
  int64_t total = 0;
  for (const fs::path& p : paths) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) continue;
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;  // symlinks, devices: skipped
    std::string rel = fs::relative(p, dir, ec).string();
    std::unique_ptr<struct archive_entry, EntryDeleter> e(archive_entry_new());
    archive_entry_set_pathname(e.get(), rel.c_str());
    archive_entry_set_perm(e.get(), st.st_mode & 0777);
    archive_entry_set_mtime(e.get(), 0, 0);  // reproducible archives
    if (S_ISDIR(st.st_mode)) {
      archive_entry_set_filetype(e.get(), AE_IFDIR);
      archive_entry_set_size(e.get(), 0);
      if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK) return ArchiveError(a.get(), rel);
      continue;
    }
    total += st.st_size;
    if (total > kMaxTarBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(dir, " holds more than ", kMaxTarBytes >> 20, " MiB"));
    }
    std::ifstream in(p, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK) return ArchiveError(a.get(), rel);
    if (!data.empty() &&
        archive_write_data(a.get(), data.data(), data.size()) != static_cast<la_ssize_t>(data.size())) {
      return ArchiveError(a.get(), rel);
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return ArchiveError(a.get(), "tar");
  return out;
}

namespace {

// Appends the data of the current entry of `a` to `data` (discards it when `data` is null),
// counting its bytes in `total`. Every entry's data goes through here, kept or not: libarchive
// decompresses a gzip or deflate stream to skip an entry, so an entry that is dropped costs the
// same CPU as one that is kept and must count against the same limit.
absl::Status ReadEntryData(struct archive* a, const std::string& name,
                           const ExtractOptions& options, int64_t* total, std::string* data) {
  char buf[65536];
  while (true) {
    la_ssize_t n = archive_read_data(a, buf, sizeof(buf));
    if (n < 0) return ArchiveError(a, name);
    if (n == 0) break;
    *total += n;
    if (*total > options.max_total_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "archive expands to more than ", options.max_total_bytes, " bytes"));
    }
    if (data != nullptr) data->append(buf, static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Reads every entry of `a` into memory, rejecting links, unsafe paths and archives over the
// limits of `options`. Entries naming the archive's root itself are dropped, after their data
// and the entry itself are counted against the limits.
absl::StatusOr<std::vector<Entry>> ReadEntries(struct archive* a, const ExtractOptions& options) {
  std::vector<Entry> entries;
  int64_t total = 0;
  int seen = 0;
  struct archive_entry* e = nullptr;
  while (true) {
    int r = archive_read_next_header(a, &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) return ArchiveError(a, "corrupt archive");
    std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    if (seen++ >= options.max_entries) {
      return absl::InvalidArgumentError(
          absl::StrCat("archive has more than ", options.max_entries, " entries"));
    }
    auto type = archive_entry_filetype(e);
    if (type != AE_IFREG && type != AE_IFDIR) {
      return absl::InvalidArgumentError(absl::StrCat(
          "archive entry \"", name, "\" is not a regular file or folder (links are not allowed)"));
    }
    if (archive_entry_hardlink(e) != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("archive entry \"", name, "\" is a hard link (not allowed)"));
    }
    auto parts = SafeComponents(name);
    if (!parts.ok()) return parts.status();
    Entry entry;
    entry.dir = type == AE_IFDIR;
    entry.mode = archive_entry_perm(e);
    // A folder's or a dropped entry's data (a folder may carry some in tar and zip) is read and
    // counted, then discarded.
    const bool keep = !parts->empty();
    std::string* sink = keep && !entry.dir ? &entry.data : nullptr;
    absl::Status st = ReadEntryData(a, name, options, &total, sink);
    if (!st.ok()) return st;
    if (!keep) continue;
    entry.parts = *std::move(parts);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Whether the entries are one top-level folder and nothing else (which is then stripped).
bool SingleTopFolder(const std::vector<Entry>& entries) {
  std::set<std::string> tops;
  bool top_is_dir = true;
  for (const Entry& en : entries) {
    tops.insert(en.parts[0]);
    if (en.parts.size() == 1 && !en.dir) top_is_dir = false;
  }
  return tops.size() == 1 && top_is_dir;
}

// Writes the entries under `dest_dir`, without their first path component if `strip`.
absl::Status WriteEntries(const std::vector<Entry>& entries, const std::string& dest_dir,
                          bool strip) {
  std::error_code ec;
  fs::create_directories(dest_dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dest_dir));
  for (const Entry& en : entries) {
    fs::path p = dest_dir;
    for (size_t i = strip ? 1 : 0; i < en.parts.size(); ++i) p /= en.parts[i];
    if (p == fs::path(dest_dir)) continue;
    if (en.dir) {
      fs::create_directories(p, ec);
      continue;
    }
    fs::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(en.data.data(), static_cast<std::streamsize>(en.data.size()));
    out.close();
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", p.string()));
    chmod(p.c_str(), (en.mode & 0777) | 0400);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExtractArchive(std::string_view bytes, const std::string& dest_dir,
                            const ExtractOptions& options) {
  std::unique_ptr<struct archive, ReadDeleter> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_zip(a.get());
  archive_read_support_format_gnutar(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return ArchiveError(a.get(), "not a tar, tar.gz or zip archive");
  }
  absl::StatusOr<std::vector<Entry>> entries = ReadEntries(a.get(), options);
  if (!entries.ok()) return entries.status();
  if (entries->empty()) return absl::InvalidArgumentError("the archive is empty");
  return WriteEntries(*entries, dest_dir, SingleTopFolder(*entries));
}

}  // namespace bbo
