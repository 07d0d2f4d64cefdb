#include "common/digest.h"

#include "absl/strings/str_format.h"

namespace bbo {

std::string Fnv1a64Hex(std::string_view bytes) {
  return absl::StrFormat("%016x", Fnv1a64(bytes));
}

}  // namespace bbo
