// The `konane` command: subcommands in the style of git.
#include <cstdio>
#include <exception>
#include <new>

#include "cli/common.hpp"
#include "core/notation.hpp"

#include "format/cleanup.hpp"
#include "format/table.hpp"

using namespace konane::cli;

int main(int argc, char** argv) {
    CLI::App app{
        "konane: Konane (Hawaiian checkers) tablebases: generate them by retrograde analysis, "
        "probe them for perfect play, analyse games."};
    app.require_subcommand(1);
    app.set_version_flag("--version", "konane 0.1.0");
    Commands commands;
    add_rules_commands(app, commands);
    add_generate_commands(app, commands);
    add_probe_commands(app, commands);
    add_serve_command(app, commands);
    // An interrupted generation removes its temporary files (format/cleanup.hpp).
    konane::format::install_interrupt_cleanup();
    // A first word that is neither an option nor a subcommand: say which.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        for (const auto& c : commands)
            known = known || c.app->get_name() == argv[1];
        if (!known) {
            std::fprintf(stderr, "konane: error: unknown command '%s' (see konane --help)\n",
                         argv[1]);
            return kBadInput;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "konane: error: %s\nRun with --help for more information.\n",
                     e.what());
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
        } catch (const konane::format::IoError& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kFailed;
        } catch (const konane::format::FormatError& e) {
            std::fprintf(stderr, "konane %s: error: %s\n", c.app->get_name().c_str(), e.what());
            return kBadInput;
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
