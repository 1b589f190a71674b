// The page of `konane serve`, compiled into the binary (cli/web/, embedded by cli/embed.cmake).
#pragma once

#include <span>
#include <string_view>

namespace konane::cli {

/// One file of the page: its URL path ("/", "/app.js", ...), MIME type and content.
struct WebAsset {
    std::string_view path;
    std::string_view type;
    std::string_view content;
};

/// Every file of the page (generated at build time from cli/web/).
std::span<const WebAsset> web_assets();

}  // namespace konane::cli
