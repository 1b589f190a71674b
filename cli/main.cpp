// The `konane` command: subcommands in the style of git.
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"

#include "format/table.hpp"
#include "konane_version.hpp"
#include "process/cleanup.hpp"

using namespace konane::cli;

int main(int argc, char** argv) {
    CLI::App app{
        "konane: Konane (Hawaiian checkers) tablebases: generate them by retrograde analysis, "
        "probe them for perfect play, analyse games; past the tables, proof search and an "
        "engine that plays any board."};
    app.require_subcommand(1);
    app.set_version_flag("--version", konane::kGenerator);
    app.footer(
        std::string("Run konane COMMAND --help for a command's options and examples.\n\n") +
        kNotationLegend +
        "\n\nExit codes: 0 success; 1 the work failed (I/O error, out of memory or "
        "threads, verify found a problem); 2 bad usage or input (malformed position, "
        "damaged or foreign table); 3 the table does not hold the position; 4 too little "
        "memory or disk for the run (a --memory budget or free space under what it needs).\n");
    // A write past `ulimit -f` fails with EFBIG and is reported, by every command (a
    // certificate's writer too), instead of SIGXFSZ ending the process without a word.
    ::signal(SIGXFSZ, SIG_IGN);
    Commands commands;
    add_moves_command(app, commands);
    add_perft_command(app, commands);
    add_generate_command(app, commands);
    add_info_command(app, commands);
    add_openings_command(app, commands);
    add_verify_command(app, commands);
    add_upgrade_command(app, commands);
    add_probe_command(app, commands);
    add_analyse_command(app, commands);
    add_solve_command(app, commands);
    add_check_proof_command(app, commands);
    add_prove_command(app, commands);
    add_serve_command(app, commands);
    add_value_command(app, commands);
    add_bestmove_command(app, commands);
    add_engine_command(app, commands);
    add_play_command(app, commands);
    add_match_command(app, commands);
    // A process ended by a signal, or by exit() from a library (a failed OpenMP thread),
    // removes its temporary files (process/cleanup.hpp).
    konane::process::install_interrupt_cleanup();
    // A first word that is neither an option nor a subcommand: say which.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        for (const auto& c : commands)
            known = known || c.app->get_name() == argv[1];
        if (!known) {
            std::fprintf(stderr, "konane: error: unknown command '%s' (see konane --help)\n",
                         konane::excerpt(argv[1]).c_str());
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
        // Named by its command, as a command's own errors are, with the help that explains it.
        const std::string command =
            argc > 1 && argv[1][0] != '-' ? std::string(" ") + argv[1] : std::string();
        std::fprintf(stderr, "konane%s: error: %s\nRun 'konane%s --help' for more information.\n",
                     command.c_str(), safe_message(e.what()).c_str(), command.c_str());
        return kBadInput;
    }
    for (const auto& c : commands) {
        if (!c.app->parsed()) continue;
        const std::string name = c.app->get_name();
        int code = kFailed;
        try {
            code = c.run();
        } catch (...) {
            const Failure f = failure_of(std::current_exception(),
                                         c.app->get_option_no_throw("--memory") != nullptr);
            std::fprintf(stderr, "konane %s: error: %s\n", name.c_str(),
                         safe_message(f.message).c_str());
            code = f.code;
        }
        // Output that could not be written (a full disk, a closed pipe) is a failure too.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::fprintf(stderr, "konane %s: error: standard output: %s\n", name.c_str(),
                         std::strerror(errno));
            if (code == kOk) code = kFailed;
        }
        return code;
    }
    return kBadInput;
}
