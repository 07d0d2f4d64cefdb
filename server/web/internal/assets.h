#ifndef BBO_SERVER_WEB_INTERNAL_ASSETS_H_
#define BBO_SERVER_WEB_INTERNAL_ASSETS_H_

// The files of server/web/static (the page, its script and its style sheet), embedded in the
// binary at build time by server/web/embed_assets.cmake: the page needs no file at run time and
// loads nothing from elsewhere. Immutable; thread-safe.

#include <string_view>
#include <vector>

namespace bbo::web::internal {

struct Asset {
  // The URL path it is served at ("/" for index.html).
  std::string_view path;
  std::string_view media_type;
  std::string_view content;
};

// Every embedded file.
const std::vector<Asset>& Assets();

}  // namespace bbo::web::internal

#endif  // BBO_SERVER_WEB_INTERNAL_ASSETS_H_
