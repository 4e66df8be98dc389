// InfoBuilder: the text of INFO, in Redis 7.2's format: "# Section" then "field:value" lines (CRLF), a blank line
// between sections, sections and fields in Redis's order (src/server.c genRedisInfoString).
// Invariants:
//  - Every Redis 7.2 field of a section is present. A field for a feature this server does not have (replication,
//    pub/sub, forks, scripts, ...) shows the value Redis shows when that feature is idle (0, -1, "no", ...).
//  - Figures this server has and Redis does not come after Redis's fields of their section, under their own names.
//  - Section selection is Redis's: no argument or "default" = the default sections; "all" = every section;
//    "everything" = all plus modules; names are case-insensitive, unknown names add nothing; output order is fixed.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using Garnet.server.Commands;
using Garnet.server.Config;

namespace Garnet.server.Metrics;

public static class InfoBuilder
{
    public static readonly string[] DefaultSections =
        ["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "module_list", "errorstats", "cluster", "keyspace"];

    // Every section in output order (Redis's genRedisInfoString); "all" and "everything" take these.
    private static readonly string[] s_order =
        ["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "module_list", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"];

    public static string Build(RespServer server, IReadOnlyList<string> requested)
    {
        var wanted = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        bool all = false;
        if (requested.Count == 0) wanted.UnionWith(DefaultSections);
        foreach (var r in requested)
        {
            if (r.Equals("default", StringComparison.OrdinalIgnoreCase)) wanted.UnionWith(DefaultSections);
            else if (r.Equals("all", StringComparison.OrdinalIgnoreCase) || r.Equals("everything", StringComparison.OrdinalIgnoreCase)) all = true;
            else wanted.Add(r);
        }
        if (wanted.Contains("modules")) wanted.Add("module_list");
        var sb = new StringBuilder(4096);
        // One expiry sample per INFO, shared by stats (expired_stale_perc) and keyspace (avg_ttl).
        var expiry = new Lazy<ExpirySampler.Estimate>(() => ExpirySampler.For(server.Store).Sample(server.Store.Store));
        foreach (var section in s_order)
        {
            if (!all && !wanted.Contains(section)) continue;
            if (sb.Length > 0) sb.Append("\r\n");
            Append(server, section, sb, expiry);
        }
        return sb.ToString();
    }

    private static void Append(RespServer server, string section, StringBuilder sb, Lazy<ExpirySampler.Estimate> expiry)
    {
        switch (section)
        {
            case "server": Server(server, sb); break;
            case "clients": Clients(server, sb); break;
            case "memory": Memory(server, sb); break;
            case "persistence": Persistence(server, sb); break;
            case "stats": Stats(server, sb, expiry.Value); break;
            case "replication": Replication(server, sb); break;
            case "cpu": Cpu(sb); break;
            case "module_list": sb.Append("# Modules\r\n"); break;
            case "commandstats": CommandStatsSection(server, sb); break;
            case "latencystats": LatencyStatsSection(server, sb); break;
            case "errorstats": ErrorStatsSection(server, sb); break;
            case "cluster": sb.Append("# Cluster\r\n"); Line(sb, "cluster_enabled", 0); break;
            case "keyspace": Keyspace(server, sb, expiry); break;
        }
    }

    private static void Line(StringBuilder sb, string field, object value) =>
        sb.Append(field).Append(':').Append(Convert.ToString(value, CultureInfo.InvariantCulture)).Append("\r\n");

    private static string F2(double v) => v.ToString("0.00", CultureInfo.InvariantCulture);
    private static string Seconds(TimeSpan t) => t.TotalSeconds.ToString("0.000000", CultureInfo.InvariantCulture);

    internal static string Human(long bytes) => MemoryFigures.Human(bytes);

    private static string? s_os;

    /// <summary>"sysname release machine", as Redis prints uname.</summary>
    private static string Os()
    {
        if (s_os is not null) return s_os;
        string machine = RuntimeInformation.OSArchitecture switch
        {
            Architecture.X64 => "x86_64",
            Architecture.Arm64 => "aarch64",
            Architecture.X86 => "i686",
            Architecture.Arm => "armv7l",
            var a => a.ToString().ToLowerInvariant(),
        };
        try
        {
            if (OperatingSystem.IsLinux())
                return s_os = $"{File.ReadAllText("/proc/sys/kernel/ostype").Trim()} {File.ReadAllText("/proc/sys/kernel/osrelease").Trim()} {machine}";
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return s_os = $"{RuntimeInformation.OSDescription} {machine}";
    }

    private static void Server(RespServer server, StringBuilder sb)
    {
        var stats = server.Stats;
        var uptime = TimeSpan.FromSeconds((Stopwatch.GetTimestamp() - stats.StartTimestamp) / (double)Stopwatch.Frequency);
        var asm = typeof(InfoBuilder).Assembly;
        sb.Append("# Server\r\n");
        Line(sb, "redis_version", ConnectionCommands.CompatibleRedisVersion);
        Line(sb, "redis_git_sha1", "00000000");
        Line(sb, "redis_git_dirty", 0);
        Line(sb, "redis_build_id", asm.ManifestModule.ModuleVersionId.ToString("N")[..16]);
        Line(sb, "redis_mode", "standalone");
        Line(sb, "os", Os());
        Line(sb, "arch_bits", IntPtr.Size * 8);
        Line(sb, "monotonic_clock", $"Stopwatch @ {Stopwatch.Frequency / 1_000_000.0:0.##} ticks/us");
        Line(sb, "multiplexing_api", OperatingSystem.IsLinux() ? "epoll" : OperatingSystem.IsWindows() ? "iocp" : "kqueue");
        Line(sb, "atomicvar_api", "dotnet-interlocked");
        Line(sb, "gcc_version", "0.0.0");
        Line(sb, "process_id", Environment.ProcessId);
        Line(sb, "process_supervised", "no");
        Line(sb, "run_id", server.RunId);
        Line(sb, "tcp_port", server.EndPoints.Count > 0 ? server.EndPoints[0].Port : server.Settings.Port);
        Line(sb, "server_time_usec", (DateTimeOffset.UtcNow - DateTimeOffset.UnixEpoch).Ticks / 10);
        Line(sb, "uptime_in_seconds", (long)uptime.TotalSeconds);
        Line(sb, "uptime_in_days", (long)uptime.TotalDays);
        Line(sb, "hz", 10);
        Line(sb, "configured_hz", 10);
        Line(sb, "lru_clock", Garnet.storage.Log.AccessClock.NowSeconds & ((1 << 24) - 1));
        Line(sb, "executable", Environment.ProcessPath ?? "");
        Line(sb, "config_file", server.Settings.ConfigFile ?? "");
        Line(sb, "io_threads_active", 0);
        // Redis: one line per connection type, every bind address, then the port.
        int n = 0;
        foreach (var group in server.EndPoints.GroupBy(e => e.Port))
        {
            var line = new StringBuilder("name=tcp");
            foreach (var ep in group) line.Append(",bind=").Append(ep.Address);
            line.Append(",port=").Append(group.Key);
            Line(sb, "listener" + n++, line.ToString());
        }
        if (server.UnixSocketPath is { } unixPath) Line(sb, "listener" + n++, "name=unix,bind=" + unixPath);
        Line(sb, "garnet_version", asm.GetName().Version?.ToString(3) ?? "0.0.0");
        Line(sb, "runtime", RuntimeInformation.FrameworkDescription);
        Line(sb, "gc_mode", System.Runtime.GCSettings.IsServerGC ? "server" : "workstation");
    }

    private static void Clients(RespServer server, StringBuilder sb)
    {
        var clients = server.Clients.Snapshot();
        sb.Append("# Clients\r\n");
        Line(sb, "connected_clients", clients.Count);
        Line(sb, "cluster_connections", 0);
        Line(sb, "maxclients", server.Settings.MaxClients);
        Line(sb, "client_recent_max_input_buffer", clients.Count == 0 ? 0 : clients.Max(c => c.Connection.QueryBufferLength));
        Line(sb, "client_recent_max_output_buffer", clients.Count == 0 ? 0 : clients.Max(c => c.Writer.Length));
        Line(sb, "blocked_clients", server.Blocked.Count);
        Line(sb, "tracking_clients", 0);
        Line(sb, "clients_in_timeout_table", 0);
        Line(sb, "total_blocking_keys", 0);
        Line(sb, "total_blocking_keys_on_nokey", 0);
        Line(sb, "pubsub_clients", server.PubSub.SubscribedClients);
    }

    private static void Memory(RespServer server, StringBuilder sb)
    {
        var m = MemoryFigures.Measure(server);
        sb.Append("# Memory\r\n");
        Line(sb, "used_memory", m.Used);
        Line(sb, "used_memory_human", Human(m.Used));
        Line(sb, "used_memory_rss", m.Rss);
        Line(sb, "used_memory_rss_human", Human(m.Rss));
        Line(sb, "used_memory_peak", m.Peak);
        Line(sb, "used_memory_peak_human", Human(m.Peak));
        Line(sb, "used_memory_peak_perc", F2(m.PeakPercent) + "%");
        Line(sb, "used_memory_overhead", m.Overhead);
        Line(sb, "used_memory_startup", m.Startup);
        Line(sb, "used_memory_dataset", m.Dataset);
        Line(sb, "used_memory_dataset_perc", F2(m.DatasetPercent) + "%");
        Line(sb, "allocator_allocated", m.GcAllocated);
        Line(sb, "allocator_active", m.GcHeapSize);
        Line(sb, "allocator_resident", m.GcCommitted);
        Line(sb, "total_system_memory", m.TotalSystem);
        Line(sb, "total_system_memory_human", Human(m.TotalSystem));
        var scripts = server.Scripts;
        long vmEval = scripts.EvalMemory, vmFunctions = scripts.FunctionsMemory;
        long scriptsEval = scripts.Cache.BodyBytes, functions = scripts.Libraries.CodeBytes;
        Line(sb, "used_memory_lua", vmEval);
        Line(sb, "used_memory_vm_eval", vmEval);
        Line(sb, "used_memory_lua_human", Human(vmEval));
        Line(sb, "used_memory_scripts_eval", scriptsEval);
        Line(sb, "number_of_cached_scripts", scripts.Cache.Count);
        Line(sb, "number_of_functions", scripts.Libraries.FunctionCount);
        Line(sb, "number_of_libraries", scripts.Libraries.LibraryCount);
        Line(sb, "used_memory_vm_functions", vmFunctions);
        Line(sb, "used_memory_vm_total", vmEval + vmFunctions);
        Line(sb, "used_memory_vm_total_human", Human(vmEval + vmFunctions));
        Line(sb, "used_memory_functions", functions);
        Line(sb, "used_memory_scripts", scriptsEval + functions);
        Line(sb, "used_memory_scripts_human", Human(scriptsEval + functions));
        Line(sb, "maxmemory", m.MaxMemory);
        Line(sb, "maxmemory_human", Human(m.MaxMemory));
        Line(sb, "maxmemory_policy", "noeviction");
        Line(sb, "allocator_frag_ratio", F2(m.AllocatorFragRatio));
        Line(sb, "allocator_frag_bytes", m.AllocatorFragBytes);
        Line(sb, "allocator_rss_ratio", F2(m.AllocatorRssRatio));
        Line(sb, "allocator_rss_bytes", m.AllocatorRssBytes);
        Line(sb, "rss_overhead_ratio", F2(m.RssOverheadRatio));
        Line(sb, "rss_overhead_bytes", m.RssOverheadBytes);
        Line(sb, "mem_fragmentation_ratio", F2(m.FragmentationRatio));
        Line(sb, "mem_fragmentation_bytes", m.FragmentationBytes);
        Line(sb, "mem_not_counted_for_evict", m.AofBuffer);
        Line(sb, "mem_replication_backlog", 0);
        Line(sb, "mem_total_replication_buffers", 0);
        Line(sb, "mem_clients_slaves", 0);
        Line(sb, "mem_clients_normal", m.ClientsNormal);
        Line(sb, "mem_cluster_links", 0);
        Line(sb, "mem_aof_buffer", m.AofBuffer);
        Line(sb, "mem_allocator", "dotnet-gc");
        Line(sb, "active_defrag_running", 0);
        Line(sb, "lazyfree_pending_objects", 0);
        Line(sb, "lazyfreed_objects", 0);
        // this server's own figures
        Line(sb, "store_index_memory", m.StoreIndex);
        Line(sb, "store_log_memory", m.StoreLog);
        Line(sb, "store_objects_memory", m.StoreObjects);
        var gc = GC.GetGCMemoryInfo();
        Line(sb, "gc_heap_size", gc.HeapSizeBytes);
        Line(sb, "gc_committed", gc.TotalCommittedBytes);
        Line(sb, "gc_allocated_bytes", GC.GetTotalAllocatedBytes(precise: false));
        Line(sb, "gc_collections_gen0", GC.CollectionCount(0));
        Line(sb, "gc_collections_gen1", GC.CollectionCount(1));
        Line(sb, "gc_collections_gen2", GC.CollectionCount(2));
        Line(sb, "gc_total_pause_ms", (long)GC.GetTotalPauseDuration().TotalMilliseconds);
    }

    /// <summary>This server's disk-read figures (in INFO stats, after Redis's fields).</summary>
    private static void DiskReads(RespServer server, StringBuilder sb)
    {
        var readers = server.Store.Store.Readers;
        Line(sb, "disk_reads", readers.Reads);
        Line(sb, "disk_read_bytes", readers.BytesRead);
        Line(sb, "disk_reader_threads", readers.Threads);
        sb.Append("disk_read_engine:").Append(readers.Engine.Replace(' ', '_')).Append("\r\n");
        Line(sb, "disk_reads_waited_on_thread", server.Store.BlockingDiskWaits);
        Line(sb, "disk_reads_on_loop_rings", readers.LoopRingReads); // of disk_reads: through the epoll loops' own rings
        // Streams larger than their share of memory (docs/objects-streams.md) and the free-space guard (--min-free-disk).
        Line(sb, "stream_spill_bytes", server.Store.StreamSpill.Bytes);
        Line(sb, "stream_spill_reads", server.Store.StreamSpill.Reads);
        Line(sb, "stream_spill_reads_async", server.Store.StreamSpill.AsyncReads);
        Line(sb, "stream_spill_reads_page_cache", server.Store.StreamSpill.PageCacheReads);
        Line(sb, "stream_spill_reads_waited_on_thread", server.Store.StreamSpill.ReadsWaitedOnThread);
        Line(sb, "stream_spill_cache_hits", server.Store.StreamSpill.CacheHits);
        Line(sb, "stream_spill_live_bytes", server.Store.StreamSpill.ListedBytes);
        Line(sb, "stream_spill_reclaimed_bytes", server.Store.StreamSpill.ReclaimedBytes);
        Line(sb, "stream_spill_reclaim_rounds", server.Store.SpillReclaimer.Rounds);
        Line(sb, "disk_free_bytes", server.Store.DiskGuard.LastFreeBytes);
        Line(sb, "disk_writes_refused", server.Store.DiskGuard.Refusing ? 1 : 0);
        Line(sb, "disk_objects_read", server.Store.Store.Objects.ObjectsRead); // objects read back from the object log and deserialized

        // Reclaiming expired keys on disk and the log's space (docs/persistence.md, "Log compaction").
        var sweep = server.Store.Store.ExpirySweepFigures;
        Line(sb, "expiry_disk_sweeps", sweep.Sweeps);
        Line(sb, "expiry_disk_sweep_pages_read", sweep.PagesRead);
        Line(sb, "expiry_disk_buried_handed_out", sweep.HandedOut);
        Line(sb, "expiry_disk_sweep_last_ms", sweep.LastSweepMs);
        Line(sb, "expiry_disk_sweep_running_ms", sweep.RunningSince > 0 ? Environment.TickCount64 - sweep.RunningSince : 0);
        Line(sb, "compaction_runs", server.Store.Compaction.Runs);
        Line(sb, "compaction_running_ms", server.Store.Compaction.RunningMs);
        Line(sb, "compaction_runs_skipped", server.Store.Compaction.SkippedRuns);
    }

    private static void Persistence(RespServer server, StringBuilder sb)
    {
        var cp = server.Checkpoints;
        var recovered = server.Store.Recovered;
        long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        bool running = cp.InProgress;
        bool rewriting = running && cp.CurrentIsAofRewrite;
        var aof = server.Aof;
        sb.Append("# Persistence\r\n");
        Line(sb, "loading", 0);
        Line(sb, "async_loading", 0);
        Line(sb, "current_cow_peak", 0);
        Line(sb, "current_cow_size", 0);
        Line(sb, "current_cow_size_age", 0);
        Line(sb, "current_fork_perc", "0.00");
        Line(sb, "current_save_keys_processed", 0);
        Line(sb, "current_save_keys_total", 0);
        Line(sb, "rdb_changes_since_last_save", cp.ChangesSinceLastSave);
        Line(sb, "rdb_bgsave_in_progress", running ? 1 : 0);
        Line(sb, "rdb_last_save_time", cp.LastSaveUnixSeconds);
        Line(sb, "rdb_last_bgsave_status", cp.LastSaveOk ? "ok" : "err");
        Line(sb, "rdb_last_bgsave_time_sec", cp.LastDurationSeconds);
        Line(sb, "rdb_current_bgsave_time_sec", cp.CurrentStartUnixSeconds < 0 ? -1 : now - cp.CurrentStartUnixSeconds);
        Line(sb, "rdb_saves", cp.Saves);
        Line(sb, "rdb_last_cow_size", 0);
        Line(sb, "rdb_last_load_keys_expired", recovered.ExpiredSkipped);
        Line(sb, "rdb_last_load_keys_loaded", recovered.Keys);
        Line(sb, "aof_enabled", aof is null ? 0 : 1);
        Line(sb, "aof_rewrite_in_progress", rewriting ? 1 : 0);
        Line(sb, "aof_rewrite_scheduled", aof is not null && cp.Scheduled ? 1 : 0);
        Line(sb, "aof_last_rewrite_time_sec", cp.LastAofRewriteSeconds);
        Line(sb, "aof_current_rewrite_time_sec", rewriting && cp.CurrentStartUnixSeconds >= 0 ? now - cp.CurrentStartUnixSeconds : -1);
        Line(sb, "aof_last_bgrewrite_status", cp.LastAofRewriteOk ? "ok" : "err");
        Line(sb, "aof_rewrites", cp.AofRewrites);
        Line(sb, "aof_rewrites_consecutive_failures", cp.AofRewriteConsecutiveFailures);
        Line(sb, "aof_last_write_status", aof is null || aof.LastWriteOk ? "ok" : "err");
        Line(sb, "aof_last_cow_size", 0);
        Line(sb, "module_fork_in_progress", 0);
        Line(sb, "module_fork_last_cow_size", 0);
        if (aof is not null)
        {
            long current = 0;
            foreach (var (path, _) in Garnet.server.Persistence.AofLog.Existing(server.Settings.Dir))
                try { current += new FileInfo(path).Length; } catch (IOException) { }
            Line(sb, "aof_current_size", current);
            Line(sb, "aof_base_size", cp.LastBytes);
            Line(sb, "aof_pending_rewrite", cp.Scheduled ? 1 : 0);
            Line(sb, "aof_buffer_length", Math.Max(0, aof.AppendedLsn - aof.BytesWritten));
            Line(sb, "aof_pending_bio_fsync", aof.BytesWritten > aof.DurableLsn ? 1 : 0);
            Line(sb, "aof_delayed_fsync", 0);
        }
        // this server's own figures
        Line(sb, "checkpoint_last_file", cp.LastFile is null ? "" : Path.GetFileName(cp.LastFile));
        Line(sb, "checkpoint_last_keys", cp.LastKeys);
        Line(sb, "checkpoint_last_bytes", cp.LastBytes);
        Line(sb, "checkpoint_save_rules", Garnet.server.Persistence.SaveRules.Format(cp.Rules));
        if (aof is not null)
        {
            Line(sb, "aof_fsync", ConfigParameters.FsyncName(aof.Policy));
            Line(sb, "aof_current_file", Garnet.server.Persistence.AofLog.FileName(aof.CurrentSequence));
            Line(sb, "aof_appended_bytes", aof.AppendedLsn);
            Line(sb, "aof_durable_bytes", aof.DurableLsn);
            Line(sb, "aof_replayed_commands", server.Replayed.Commands);
        }
    }

    private static void Stats(RespServer server, StringBuilder sb, ExpirySampler.Estimate estimate)
    {
        var st = server.Stats;
        var t = st.Totals();
        sb.Append("# Stats\r\n");
        Line(sb, "total_connections_received", st.ConnectionsReceived);
        Line(sb, "total_commands_processed", t.Commands);
        Line(sb, "instantaneous_ops_per_sec", st.InstantaneousOpsPerSec);
        Line(sb, "total_net_input_bytes", t.NetIn);
        Line(sb, "total_net_output_bytes", t.NetOut);
        Line(sb, "total_net_repl_input_bytes", 0);
        Line(sb, "total_net_repl_output_bytes", 0);
        Line(sb, "instantaneous_input_kbps", F2(st.InstantaneousInputKbps));
        Line(sb, "instantaneous_output_kbps", F2(st.InstantaneousOutputKbps));
        Line(sb, "instantaneous_input_repl_kbps", "0.00");
        Line(sb, "instantaneous_output_repl_kbps", "0.00");
        Line(sb, "rejected_connections", st.RejectedConnections);
        Line(sb, "sync_full", 0);
        Line(sb, "sync_partial_ok", 0);
        Line(sb, "sync_partial_err", 0);
        Line(sb, "expired_keys", st.ExpiredKeys(server.Store.ExpiredKeys));
        Line(sb, "expired_stale_perc", F2(estimate.StalePercent));
        Line(sb, "expired_time_cap_reached_count", 0);
        Line(sb, "expire_cycle_cpu_milliseconds", 0);
        Line(sb, "evicted_keys", 0);
        Line(sb, "evicted_clients", 0);
        Line(sb, "total_eviction_exceeded_time", 0);
        Line(sb, "current_eviction_exceeded_time", 0);
        Line(sb, "keyspace_hits", t.KeyspaceHits);
        Line(sb, "keyspace_misses", t.KeyspaceMisses);
        Line(sb, "pubsub_channels", server.PubSub.ChannelCount);
        Line(sb, "pubsub_patterns", server.PubSub.PatternCount);
        Line(sb, "pubsubshard_channels", server.PubSub.ShardChannelCount);
        Line(sb, "latest_fork_usec", 0);
        Line(sb, "total_forks", 0);
        Line(sb, "migrate_cached_sockets", 0);
        Line(sb, "slave_expires_tracked_keys", 0);
        Line(sb, "active_defrag_hits", 0);
        Line(sb, "active_defrag_misses", 0);
        Line(sb, "active_defrag_key_hits", 0);
        Line(sb, "active_defrag_key_misses", 0);
        Line(sb, "total_active_defrag_time", 0);
        Line(sb, "current_active_defrag_time", 0);
        Line(sb, "tracking_total_keys", 0);
        Line(sb, "tracking_total_items", 0);
        Line(sb, "tracking_total_prefixes", 0);
        Line(sb, "unexpected_error_replies", 0);
        Line(sb, "total_error_replies", t.Errors);
        Line(sb, "dump_payload_sanitizations", 0);
        Line(sb, "total_reads_processed", 0);
        Line(sb, "total_writes_processed", 0);
        Line(sb, "io_threaded_reads_processed", 0);
        Line(sb, "io_threaded_writes_processed", 0);
        Line(sb, "reply_buffer_shrinks", 0);
        Line(sb, "reply_buffer_expands", 0);
        Line(sb, "eventloop_cycles", 0);
        Line(sb, "eventloop_duration_sum", 0);
        Line(sb, "eventloop_duration_cmd_sum", 0);
        Line(sb, "instantaneous_eventloop_cycles_per_sec", 0);
        Line(sb, "instantaneous_eventloop_duration_usec", 0);
        // A failed AUTH answers WRONGPASS (Redis counts those as user_auth_failures).
        Line(sb, "acl_access_denied_auth", st.Errors.CountOf("WRONGPASS"));
        Line(sb, "acl_access_denied_cmd", 0);
        Line(sb, "acl_access_denied_key", 0);
        Line(sb, "acl_access_denied_channel", 0);
        DiskReads(server, sb);
    }

    private static void Replication(RespServer server, StringBuilder sb)
    {
        sb.Append("# Replication\r\n");
        Line(sb, "role", "master");
        Line(sb, "connected_slaves", 0);
        Line(sb, "master_failover_state", "no-failover");
        Line(sb, "master_replid", server.RunId);
        Line(sb, "master_replid2", new string('0', 40));
        Line(sb, "master_repl_offset", 0);
        Line(sb, "second_repl_offset", -1);
        Line(sb, "repl_backlog_active", 0);
        Line(sb, "repl_backlog_size", 0);
        Line(sb, "repl_backlog_first_byte_offset", 0);
        Line(sb, "repl_backlog_histlen", 0);
    }

    private static void Cpu(StringBuilder sb)
    {
        using var p = Process.GetCurrentProcess();
        sb.Append("# CPU\r\n");
        Line(sb, "used_cpu_sys", Seconds(p.PrivilegedProcessorTime));
        Line(sb, "used_cpu_user", Seconds(p.UserProcessorTime));
        Line(sb, "used_cpu_sys_children", "0.000000");
        Line(sb, "used_cpu_user_children", "0.000000");
        // No main thread here (connections run on the thread pool): Redis's per-main-thread figures are 0.
        Line(sb, "used_cpu_sys_main_thread", "0.000000");
        Line(sb, "used_cpu_user_main_thread", "0.000000");
    }

    private static void ErrorStatsSection(RespServer server, StringBuilder sb)
    {
        sb.Append("# Errorstats\r\n");
        foreach (var (code, count) in server.Stats.Errors.Snapshot())
            sb.Append("errorstat_").Append(code).Append(":count=").Append(count.ToString(CultureInfo.InvariantCulture)).Append("\r\n");
    }

    /// <summary>cmdstat_&lt;name&gt;:calls=..,usec=..,usec_per_call=..,rejected_calls=..,failed_calls=.. for every command
    /// (and subcommand, as container|sub) with a call, a rejection or a failure.</summary>
    private static void CommandStatsSection(RespServer server, StringBuilder sb)
    {
        sb.Append("# Commandstats\r\n");
        foreach (var cmd in server.Commands.AllWithSubcommands)
        {
            var f = server.CommandStats.Read(cmd.Id);
            if (!f.Any) continue;
            double perCall = f.Calls == 0 ? 0 : (float)f.Usec / f.Calls;
            sb.Append("cmdstat_").Append(cmd.FullName).Append(CultureInfo.InvariantCulture,
                $":calls={f.Calls},usec={f.Usec},usec_per_call={perCall:0.00},rejected_calls={f.RejectedCalls},failed_calls={f.FailedCalls}\r\n");
        }
    }

    /// <summary>latency_percentiles_usec_&lt;name&gt;:p50=..,p99=..,p99.9=.. (latency-tracking-info-percentiles) for every command
    /// with a latency histogram.</summary>
    private static void LatencyStatsSection(RespServer server, StringBuilder sb)
    {
        sb.Append("# Latencystats\r\n");
        var percentiles = server.LatencyPercentiles;
        foreach (var cmd in server.Commands.AllWithSubcommands)
        {
            if (server.CommandStats.Histogram(cmd.Id) is not { } h) continue;
            sb.Append("latency_percentiles_usec_").Append(cmd.FullName).Append(':');
            for (int j = 0; j < percentiles.Length; j++)
            {
                if (j > 0) sb.Append(',');
                double usec = LatencyHistogram.ValueAtPercentile(h, percentiles[j]) / 1000.0;
                sb.Append('p').Append(Config.ObservabilityParameters.FormatPercentile(percentiles[j])).Append('=')
                  .Append(usec.ToString("0.000", CultureInfo.InvariantCulture));
            }
            sb.Append("\r\n");
        }
    }

    private static void Keyspace(RespServer server, StringBuilder sb, Lazy<ExpirySampler.Estimate> expiry)
    {
        var store = server.Store;
        sb.Append("# Keyspace\r\n");
        for (int db = 0; db < store.Databases; db++)
        {
            long keys = store.KeyCount(db), expires = store.ExpiringCount(db);
            if (keys == 0 && expires == 0) continue;
            long avgTtl = expires > 0 && expiry.Value.AvgTtlMsByPhysicalId.TryGetValue(store.PhysicalId(db), out long ttl) ? ttl : 0;
            sb.Append(CultureInfo.InvariantCulture, $"db{db}:keys={keys},expires={expires},avg_ttl={avgTtl}\r\n");
        }
    }
}
