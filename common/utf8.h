#ifndef BBO_COMMON_UTF8_H_
#define BBO_COMMON_UTF8_H_

// Bounded, valid UTF-8 from untrusted bytes: what an optimizer prints (error messages, its
// stderr tail) is cut to a documented length before it is stored, logged or sent on, without
// splitting a character, and invalid sequences become U+FFFD (EF BF BD). Protobuf string
// fields, SQLite text and JSON all require valid UTF-8; a protobuf message with an invalid
// string fails to serialize.
//
// Validity follows RFC 3629: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF. Each byte that does not start a valid sequence becomes one U+FFFD. NUL bytes are
// kept (they are valid UTF-8).
//
// Stateless and thread-safe. The cost is O(max_bytes), never O(s.size()), so a 60 MB message
// cut to 4 KiB costs 4 KiB of work.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace bbo {

// The longest valid-UTF-8 prefix of sanitize(s) that fits in `max_bytes` bytes. A replacement
// character counts its 3 bytes. max_bytes 0 gives "".
std::string TruncateUtf8(absl::string_view s, size_t max_bytes);

// The same from the end: the longest valid-UTF-8 suffix of sanitize(s) that fits in `max_bytes`
// (for stderr tails, whose last lines matter most). A partial character at the cut is dropped,
// so a tail of non-ASCII text is never cut to nothing unless max_bytes < 4.
std::string LastUtf8Bytes(absl::string_view s, size_t max_bytes);

// true when `s` is valid UTF-8 as above.
bool IsValidUtf8(absl::string_view s);

// The last `max_bytes` of a child's stderr as a readable block to append to an error message:
// "\n  | line\n  | line" (each line indented, so it reads as quoted text wherever the message is
// shown), valid UTF-8 cut on a character boundary (LastUtf8Bytes), a cut first line marked
// "...", carriage returns dropped, and every other control character (C0 but tab and newline,
// DEL, C1: terminal escapes among them) shown as U+FFFD. "" for an empty tail.
std::string StderrBlock(absl::string_view tail, size_t max_bytes);

}  // namespace bbo

#endif  // BBO_COMMON_UTF8_H_
