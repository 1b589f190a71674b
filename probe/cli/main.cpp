// The `konane` command: subcommands in the style of git.
#include <cstdio>
#include <exception>
#include <new>

#include "core/notation.hpp"
#include "probe/cli/common.hpp"

#if __has_include("format/table.hpp")
#include "format/table.hpp"
#define KONANE_HAVE_FORMAT 1
#endif

using namespace konane::cli;

int main(int argc, char** argv) {
    CLI::App app{
        "konane: Konane (Hawaiian checkers) tablebases: generate them by retrograde analysis, "
        "probe them for perfect play, analyse games."};
    app.require_subcommand(1);
    app.set_version_flag("--version", "konane 0.1.0");
    Commands commands;
    add_rules_commands(app, commands);
#ifdef KONANE_HAVE_GENERATE
    add_generate_commands(app, commands);
#endif
#ifdef KONANE_HAVE_PROBE
    add_probe_commands(app, commands);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kBadInput;
    }
    for (const auto& c : commands) {
        if (!c.app->parsed()) continue;
        try {
            return c.run();
        } catch (const UsageError& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kBadInput;
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kBadInput;
#ifdef KONANE_HAVE_FORMAT
        } catch (const konane::format::FormatError& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kBadInput;
#endif
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "konane %s: error: out of memory\n", c.app->get_name().c_str());
            return kFailed;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kFailed;
        }
    }
    return kBadInput;
}
