#include "manager/manager.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "process/cleanup.hpp"
#include "process/directory_lock.hpp"
#include "process/read_file.hpp"
#include "process/self.hpp"
#include "search/proof_certificate.hpp"

namespace konane {

namespace fs = std::filesystem;

namespace {

/// The lock of a work directory, held by a manager's life. @throws std::runtime_error when
/// another manager holds it or it cannot be opened.
process::DirectoryLock lock_directory(const fs::path& dir) {
    std::optional<process::DirectoryLock> l;
    try {
        l = process::DirectoryLock::try_take(dir);
    } catch (const std::system_error& e) {
        if (e.code().value() == ELOOP) throw std::runtime_error(e.what());  // a link: says so
        throw std::runtime_error(std::string(e.what()) + ": cannot open");
    }
    if (!l) {
        throw std::runtime_error(dir.string() +
                                 ": another konane prove is working on this tree (two runs "
                                 "would overwrite each other's proofs): wait for it to end");
    }
    return std::move(*l);
}

/// The largest budget a retried leaf is given (10^18 nodes: far past any search that ends).
constexpr std::uint64_t kMaxLeafBudget = 1'000'000'000'000'000'000;

/// Refuses a symbolic link at `p`, a file or folder of a work directory that is the
/// directory's own (a link would read or write where the run was not told to).
/// @throws std::runtime_error "<p>: a symbolic link (...)"
void refuse_link(const fs::path& p) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(p, ec))) {
        throw std::runtime_error(p.string() +
                                 ": a symbolic link (a work directory's own files are not "
                                 "followed: replace it by the file or folder itself)");
    }
}

/// The work directory's `proofs` folder made (with `dir`) when missing; a link there refused.
void make_proofs_folder(const fs::path& dir) {
    refuse_link(dir / "proofs");
    std::error_code ec;
    fs::create_directories(dir / "proofs", ec);
    if (ec)
        throw std::runtime_error((dir / "proofs").string() + ": cannot create: " + ec.message());
    refuse_link(dir / "proofs");  // made a link in between
}

/// Checks every proof file `t` names (present: a missing one was forgotten already) for what is
/// cheap to check when the directory is opened: a regular file, not a link, of a certificate's
/// first line and checksum. A damaged one is found now, not when the roots' certificate is
/// assembled at the end of the proof.
/// @throws std::runtime_error "<file>: damaged (...): remove it and run again: the N positions
///         it proves are then open again and searched anew"
void check_proof_files(const ProofTree& t, const std::function<fs::path(std::uint32_t)>& path) {
    std::unordered_map<std::uint32_t, std::uint64_t> positions;  // file -> nodes it decides
    for (std::uint32_t i = 0; i < t.size(); ++i)
        if (t.node(i).proof_file != 0) ++positions[t.node(i).proof_file];
    std::vector<std::uint32_t> files;
    for (const auto& [f, n] : positions)
        files.push_back(f);
    std::sort(files.begin(), files.end());
    constexpr std::string_view kCertificateMagic = "konane proof certificate 1\n";
    for (const std::uint32_t f : files) {
        const fs::path p = path(f);
        std::string why;
        try {
            process::ChecksummedFile file(p, std::uint64_t{1} << 40, process::Links::Refuse);
            std::string first(kCertificateMagic.size(), '\0');
            if (file.size() < first.size() + 8) {
                why = "too short to be a certificate";
            } else {
                file.read(0, first.size(), first.data());
                if (first != kCertificateMagic)
                    why = "not a konane proof certificate";
                else if (!file.checksum_matches())
                    why = "checksum mismatch";
            }
        } catch (const std::runtime_error& e) {
            why = e.what();
            if (why.rfind(p.string() + ": ", 0) == 0) why = why.substr(p.string().size() + 2);
        }
        if (!why.empty()) {
            throw std::runtime_error(
                p.string() + ": damaged (" + why + "): remove it and run again: the " +
                std::to_string(positions[f]) + " position" + (positions[f] == 1 ? "" : "s") +
                " it proves are then open again and searched anew");
        }
    }
}

std::uint64_t file_bytes(const fs::path& p) {
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : n;
}

}  // namespace

ProofOptions table_holder_options(const ProofOptions& o, int workers) {
    ProofOptions holder = o;
    holder.algorithm = ProofAlgorithm::Enhanced;  // no df-pn numbers of its own
    holder.dfpn_memory_bytes = 0;
    holder.memory_bytes =
        static_cast<std::size_t>(std::max(workers, 1)) * ProofSearch::proven_budget(o);
    return holder;
}

LeafResult solve_leaf(ProofSearch& s, const ProofGame& g, ProofKey key, std::uint64_t budget,
                      const std::atomic<bool>& stopped, bool children_proof) {
    LeafResult out;
    const Position p = key.position();
    s.set_max_nodes(budget);
    const ProofResult r = s.solve(p);
    out.nodes = r.nodes;
    if (stopped.load()) return out;  // given back: a stopped run builds no proof
    // The certificate: the stop flag stays set, so that a stop also ends its building (the
    // builder then throws, and the leaf is given back as stopped).
    try {
        CertificateBuilder builder(s);
        bool any = false;
        if (r.win) {
            builder.add_root(p, *r.win ? p.to_move : other(p.to_move));
            any = true;
        } else {
            for (const MoveChild& m : g.moves(key)) {
                const std::optional<bool> v = s.proven(m.child);
                out.children.values.push_back(v);
                if (v && children_proof) {
                    builder.add_root(m.child, *v ? m.child.to_move : other(m.child.to_move));
                    any = true;
                }
            }
        }
        if (any) {
            out.proof =
                builder.finish(CertificateKind::Positions, g.opening(), "konane prove (leaf)");
        }
    } catch (const std::exception&) {
        if (!stopped.load()) throw;
        LeafResult given_back;
        given_back.nodes = r.nodes;
        return given_back;
    }
    out.win = r.win;
    return out;
}

ProofManager::ProofManager(fs::path dir, ProofTree tree, process::DirectoryLock lock)
    : dir_(std::move(dir)), tree_(std::move(tree)), lock_(std::move(lock)) {}

fs::path ProofManager::proof_path(std::uint32_t file) const {
    return dir_ / "proofs" / (std::to_string(file) + ".proof");
}

bool ProofManager::exists(const fs::path& dir) {
    // A link (dangling or not) counts: open() then refuses it rather than create() replacing it.
    std::error_code ec;
    return fs::symlink_status(dir / "tree", ec).type() != fs::file_type::not_found;
}

ProofManager ProofManager::create(const fs::path& dir, ProofTree tree) {
    if (exists(dir)) {
        throw std::runtime_error(dir.string() +
                                 ": holds a proof tree already (resume it with --work alone, or "
                                 "give another directory)");
    }
    std::error_code ec;
    make_proofs_folder(dir);
    process::DirectoryLock lock = lock_directory(dir);
    if (!fs::is_empty(dir / "proofs", ec)) {
        throw std::runtime_error((dir / "proofs").string() +
                                 ": holds files already (another tree's proofs?): give an empty "
                                 "or new directory");
    }
    ProofManager m(dir, std::move(tree), std::move(lock));
    m.tree_.save(m.tree_path());
    return m;
}

ProofManager ProofManager::open(const fs::path& dir) {
    if (!exists(dir)) throw std::runtime_error(dir.string() + ": holds no proof tree");
    make_proofs_folder(dir);
    process::DirectoryLock lock = lock_directory(dir);
    // Temporary files of a run that was killed (SIGKILL, a power cut) before it renamed them;
    // never through a link: `proofs` is no link (refused above), and `dir`, as it was named, is
    // resolved first.
    std::error_code ec;
    const fs::path resolved = fs::canonical(dir, ec);
    process::remove_stale_temporaries_in(ec ? dir : resolved);
    process::remove_stale_temporaries_in(dir / "proofs");
    ProofManager m(dir, ProofTree::load(dir / "tree"), std::move(lock));
    // A proof file the tree names that is gone (a copy without proofs/, a file removed): the
    // positions it proved are open again, and what the tree decided from them is undone.
    m.reopened_ = m.tree_.forget_proofs([&](std::uint32_t f) {
        refuse_link(m.proof_path(f));
        std::error_code e;
        return !fs::is_regular_file(m.proof_path(f), e);
    });
    check_proof_files(m.tree_, [&](std::uint32_t f) { return m.proof_path(f); });
    return m;
}

ManagerReport ProofManager::run(const ManagerOptions& o) {
    const int remotes = o.remote ? o.remote->count() : 0;
    if (o.workers < 0 || (o.workers == 0 && remotes == 0))
        throw std::invalid_argument("proof manager: at least one worker");
    if (o.leaf_nodes < 1) throw std::invalid_argument("proof manager: leaf budget of 0 nodes");
    if (o.leaf_retries < 0) throw std::invalid_argument("proof manager: negative leaf retries");
    if (!(o.stop_grace_seconds >= 0))
        throw std::invalid_argument("proof manager: negative stop grace");
    tree_.set_leaf_search(
        {o.leaf_nodes, o.search.algorithm == ProofAlgorithm::DfPn, o.leaf_retries});
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const double cpu_start = process::cpu_seconds();
    auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };

    ManagerReport report;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> halt{false};  // stop the searches now
    bool draining = false;          // hand out no more leaves (node limit): under `mutex`
    int running = 0;                // worker threads not yet returned: under `mutex`
    std::exception_ptr failure;     // under `mutex`
    std::uint64_t leaves = 0;       // results merged: under `mutex`
    std::uint64_t changes = 0;      // results merged or leaves given back: under `mutex`

    // So that every worker has a leaf from the start, leaves are expanded without search (the
    // most-proving first) while the tree has fewer open leaves than workers.
    if (!(o.stop && o.stop->load())) {
        const std::uint64_t want = static_cast<std::uint64_t>(o.workers) + remotes;
        for (int i = 0; i < 10000 && !tree_.done() && tree_.stats().open_leaves < want; ++i) {
            const auto leaf = tree_.select();
            if (!leaf) break;
            tree_.expand(*leaf, {}, 0);
        }
    }

    // Whether leaf i, left undecided by its next search, is searched again rather than
    // expanded. Under `mutex`.
    auto will_retry = [&](std::uint32_t i) {
        return tree_.node(i).tries < static_cast<std::uint32_t>(o.leaf_retries);
    };
    // The budget of leaf i's next search: leaf_nodes times kLeafGrowth per try. Under `mutex`.
    auto leaf_budget = [&](std::uint32_t i) {
        std::uint64_t b = o.leaf_nodes;
        for (std::uint32_t t = 0; t < tree_.node(i).tries && b < kMaxLeafBudget; ++t)
            b *= ManagerOptions::kLeafGrowth;
        return std::min(b, kMaxLeafBudget);
    };
    // A leaf to hand out, with the number of its proof file; nullopt when none may be handed
    // out now. Under `mutex`.
    auto take = [&]() -> std::optional<std::pair<std::uint32_t, std::uint32_t>> {
        if (halt.load() || draining || tree_.done()) return std::nullopt;
        const auto leaf = tree_.select();
        if (!leaf) return std::nullopt;
        return std::make_pair(*leaf, tree_.next_proof_file());
    };
    // A worker's result merged into the tree (its proof file written already). Under `mutex`.
    auto merge = [&](std::uint32_t leaf, std::uint32_t file, LeafResult& r) {
        ++changes;
        if (!r.win && (halt.load() || r.children.values.empty())) {
            // Stopped (an undecided leaf has moves, so a result without its children's values
            // was stopped): the leaf is given back undecided, the nodes its search took
            // counted in this run and in the tree's total.
            tree_.release(leaf, r.nodes);
            report.nodes += r.nodes;
            return;
        }
        if (r.win && !r.proof) {
            tree_.release(leaf);
            throw std::runtime_error("proof manager: a worker decided a leaf without its proof");
        }
        if (r.win) {
            tree_.decided(leaf, *r.win, file, r.nodes);
            ++report.decided;
        } else if (will_retry(leaf)) {
            // Searched again, with a larger budget, before it is expanded: the proof of the
            // children it proved is not needed, the next search proves them again (a thread
            // does not build it; a worker rank's is removed).
            tree_.retry(leaf, r.nodes);
            std::error_code ec;
            fs::remove(proof_path(file), ec);
            ++report.retried;
        } else {
            r.children.proof_file = r.proof ? file : 0;
            tree_.expand(leaf, r.children, r.nodes);
            ++report.expanded;
        }
        report.nodes += r.nodes;
        ++leaves;
        if (o.max_nodes != 0 && report.nodes >= o.max_nodes) draining = true;
        wake.notify_all();
    };
    // At zstd level 9 (level19_bytes 0): a leaf's proof is read back once, to be merged into the
    // roots' certificate, which is written at level 19.
    auto write_proof = [&](std::uint32_t file, const LeafResult& r) {
        if (r.proof) write_certificate(proof_path(file), *r.proof, 0);
    };
    auto fail = [&](std::exception_ptr e) {  // under `mutex`
        if (!failure) failure = e;
        halt = true;
        wake.notify_all();
    };

    // With shared_table: a search that never searches, made by the first worker to take a leaf
    // (under `mutex`), holding the table of proven values every worker's search shares.
    std::optional<ProofSearch> table_holder;
    auto make_search = [&](std::optional<ProofSearch>& s, const ProofOptions& so) {
        if (!(o.shared_table && o.workers > 1)) {
            s.emplace(tree_.game().board(), so);
            return;
        }
        std::lock_guard lock(mutex);
        if (!table_holder)
            table_holder.emplace(tree_.game().board(), table_holder_options(so, o.workers));
        s.emplace(*table_holder, so);
    };

    auto worker = [&] {
        try {
            ProofOptions so = o.search;
            so.threads = 1;
            so.max_seconds = 0;
            so.stop = &halt;
            std::optional<ProofSearch> s;  // made with the first leaf (none: no table mapped)
            for (;;) {
                std::unique_lock lock(mutex);
                std::optional<std::pair<std::uint32_t, std::uint32_t>> job;
                // Wait while every open leaf is with another worker.
                while (!(job = take()) && !(halt.load() || draining || tree_.done()))
                    wake.wait(lock);
                if (!job) break;
                // The key is copied under the lock: another worker's expand() may move the
                // tree's nodes while this one searches.
                const ProofKey key = tree_.node(job->first).key;
                const std::uint64_t budget = leaf_budget(job->first);
                const bool children_proof = !will_retry(job->first);
                lock.unlock();
                LeafResult r;
                try {
                    if (!s) make_search(s, so);
                    r = solve_leaf(*s, tree_.game(), key, budget, halt, children_proof);
                    write_proof(job->second, r);
                } catch (...) {
                    lock.lock();
                    tree_.release(job->first);
                    throw;
                }
                lock.lock();
                merge(job->first, job->second, r);
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            fail(std::current_exception());
        }
        std::lock_guard lock(mutex);
        --running;
        wake.notify_all();
    };

    if (o.stop && o.stop->load()) halt = true;
    std::vector<std::thread> threads;
    {
        // Threads start under the lock, so that one that cannot start leaves the others to be
        // joined (running counts only those started).
        std::lock_guard lock(mutex);
        try {
            for (int w = 0; w < o.workers; ++w) {
                threads.emplace_back(worker);
                ++running;
            }
        } catch (...) {
            fail(std::current_exception());
        }
    }
    // The calling thread: the remote workers (every call to them is made here), the limits,
    // the checkpoints and the progress.
    std::vector<std::optional<std::pair<std::uint32_t, std::uint32_t>>> remote_job(
        static_cast<std::size_t>(remotes));
    std::vector<bool> stop_sent(static_cast<std::size_t>(remotes), false);
    std::vector<double> stop_sent_at(static_cast<std::size_t>(remotes), 0);
    std::vector<bool> lost(static_cast<std::size_t>(remotes), false);  // given up: no answer
    auto remote_busy = [&] {
        return std::any_of(remote_job.begin(), remote_job.end(),
                           [](const auto& j) { return j.has_value(); });
    };
    double last_save = 0, last_progress = 0, accounted = 0;
    double remote_cpu = 0;                         // CPU seconds of the remote workers' searches
    std::uint64_t saved_leaves = 0;                // leaves merged when the tree was last saved
    std::uint64_t no_leaf_at = ~std::uint64_t{0};  // `changes` when no leaf was free for a remote
    {
        std::unique_lock lock(mutex);
        for (;;) {
            bool active = false;
            if (remotes > 0 && !failure) {
                try {
                    for (int w = 0; w < remotes && no_leaf_at != changes; ++w) {
                        auto& job = remote_job[static_cast<std::size_t>(w)];
                        if (job || lost[static_cast<std::size_t>(w)]) continue;
                        job = take();
                        if (!job) {
                            no_leaf_at = changes;  // none until a result or a leaf given back
                            break;
                        }
                        o.remote->send(w, tree_.node(job->first).key, leaf_budget(job->first));
                        stop_sent[static_cast<std::size_t>(w)] = false;
                        active = true;
                    }
                    while (auto got = o.remote->poll()) {
                        auto& job = remote_job.at(static_cast<std::size_t>(got->first));
                        if (lost[static_cast<std::size_t>(got->first)]) continue;  // too late
                        if (!job)
                            throw std::runtime_error("proof manager: a result from an idle worker");
                        const auto [leaf, file] = *job;
                        job.reset();
                        lock.unlock();
                        try {
                            write_proof(file, got->second);
                        } catch (...) {
                            lock.lock();
                            tree_.release(leaf);
                            throw;
                        }
                        lock.lock();
                        remote_cpu += got->second.cpu_seconds;
                        merge(leaf, file, got->second);
                        active = true;
                    }
                    if (halt.load()) {
                        for (int w = 0; w < remotes; ++w) {
                            const auto i = static_cast<std::size_t>(w);
                            if (remote_job[i] && !stop_sent[i]) {
                                o.remote->stop(w);
                                stop_sent[i] = true;
                                stop_sent_at[i] = elapsed();
                            } else if (remote_job[i] &&
                                       elapsed() - stop_sent_at[i] > o.stop_grace_seconds) {
                                // No answer within the grace: the leaf is given back and the
                                // worker given up, so that a frozen rank cannot hold the run.
                                tree_.release(remote_job[i]->first);
                                remote_job[i].reset();
                                lost[i] = true;
                                ++report.lost_workers;
                                ++changes;
                            }
                        }
                    }
                } catch (...) {
                    if (!lock.owns_lock()) lock.lock();
                    fail(std::current_exception());
                }
            }
            if (running == 0 && !(remotes > 0 && !failure && remote_busy()) &&
                (remotes == 0 || failure || halt.load() || draining || tree_.done()))
                break;
            if (!active) wake.wait_for(lock, std::chrono::milliseconds(remotes > 0 ? 2 : 100));
            const double now = elapsed();
            if ((o.stop && o.stop->load()) || (o.max_seconds > 0 && now >= o.max_seconds)) {
                halt = true;
                wake.notify_all();
            }
            try {
                if (leaves != saved_leaves && now - last_save >= o.checkpoint_seconds) {
                    // The run's seconds so far go with the tree (a killed run keeps them).
                    tree_.add_seconds(now - accounted);
                    accounted = now;
                    tree_.save(tree_path());
                    ++report.saves;
                    last_save = now;
                    saved_leaves = leaves;
                }
                if (progress_ && now - last_progress >= interval_) {
                    ManagerProgress p;
                    p.tree = tree_.stats();
                    p.nodes = report.nodes;
                    p.leaves = leaves;
                    p.seconds = now;
                    for (std::size_t r = 0; r < tree_.root_count(); ++r) {
                        const TreeNode& n = tree_.node(tree_.root_node(r));
                        if (n.state != TreeState::Open) continue;
                        if (p.root_pn == 0 ||
                            std::min(n.pn, n.dn) < std::min(p.root_pn, p.root_dn)) {
                            p.root_pn = n.pn;
                            p.root_dn = n.dn;
                        }
                    }
                    last_progress = now;
                    lock.unlock();
                    progress_(p);
                    lock.lock();
                }
            } catch (...) {
                if (!lock.owns_lock()) lock.lock();
                fail(std::current_exception());
            }
        }
        // Leaves still marked busy (a remote worker that failed) are given back.
        for (auto& job : remote_job)
            if (job) tree_.release(job->first);
    }
    for (std::thread& t : threads)
        t.join();
    report.seconds = elapsed();
    report.cpu_seconds = process::cpu_seconds() - cpu_start + remote_cpu;
    tree_.add_seconds(report.seconds - accounted);
    tree_.save(tree_path());
    ++report.saves;
    if (failure) std::rethrow_exception(failure);
    report.done = tree_.done();
    report.tree = tree_.stats();
    report.tree_bytes = file_bytes(tree_path());
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "proofs", ec))
        if (e.is_regular_file(ec)) report.proof_bytes += file_bytes(e.path());
    return report;
}

Certificate ProofManager::certificate(std::string generator) const {
    const ProofTree::Proof proof = tree_.proof();
    // One entry per key, a few bytes each (the proof files of a long run hold hundreds of
    // millions): where two proofs name different winning moves of a position, either proves it
    // (each file proves every position it names), so the first is kept.
    CompactKeyMap entries;
    for (const ProofEntry& e : proof.entries)
        entries.insert(e.key, e.move);
    const ProofGame& g = tree_.game();
    for (const std::uint32_t f : proof.files) {
        try {
            refuse_link(proof_path(f));
        } catch (const std::runtime_error& e) {
            throw CertificateError(e.what());
        }
        const Certificate c = read_certificate(proof_path(f));
        if (!(c.board == g.board()) || c.jumps_only != g.jumps_only() ||
            !(c.opening == g.opening())) {
            throw CertificateError(proof_path(f).string() +
                                   ": a proof of another board or game than the tree's");
        }
        c.entries.for_each([&](const ProofKey& k, std::uint8_t v) { entries.insert(k, v); });
    }
    Certificate c;
    c.board = g.board();
    c.opening = g.opening();
    c.jumps_only = g.jumps_only();
    c.kind = tree_.kind();
    for (std::size_t r = 0; r < tree_.root_count(); ++r) {
        const Position p = tree_.root_positions()[r];
        const bool win = *tree_.root_value(r);
        c.roots.push_back({p, win ? p.to_move : other(p.to_move)});
    }
    c.entries = entries.take();
    c.generator = std::move(generator);
    return c;
}

}  // namespace konane
