// The page of `konane serve`, compiled into the binary (serve/web/, embedded by
// serve/web/embed.cmake).
#pragma once

#include <span>
#include <string_view>

namespace konane::serve {

/// One file of the page: its URL path ("/", "/app.js", ...), MIME type and content.
struct WebAsset {
    std::string_view path;
    std::string_view type;
    std::string_view content;
};

/// Every file of the page (generated at build time from serve/web/).
std::span<const WebAsset> web_assets();

}  // namespace konane::serve
