// InfoBuilder: the text of INFO, section by section, in Redis's format ("# Section" then "field:value",
// CRLF line ends, a blank line between sections). Only figures the server really measures are shown.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using Garnet.server.Commands;

namespace Garnet.server.Metrics;

public static class InfoBuilder
{
    public static readonly string[] DefaultSections = ["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace"];

    public static string Build(RespServer server, IReadOnlyList<string> requested)
    {
        var wanted = new List<string>();
        if (requested.Count == 0) wanted.AddRange(DefaultSections);
        foreach (var r in requested)
        {
            var name = r.ToLowerInvariant();
            if (name is "all" or "everything" or "default") wanted.AddRange(DefaultSections);
            else wanted.Add(name);
        }
        var sb = new StringBuilder();
        foreach (var section in wanted.Distinct())
        {
            int before = sb.Length;
            if (before > 0) sb.Append("\r\n");
            if (!Append(server, section, sb)) sb.Length = before;
        }
        return sb.ToString();
    }

    private static bool Append(RespServer server, string section, StringBuilder sb)
    {
        switch (section)
        {
            case "server": Server(server, sb); return true;
            case "clients": Clients(server, sb); return true;
            case "memory": Memory(server, sb); return true;
            case "stats": Stats(server, sb); return true;
            case "replication": Replication(server, sb); return true;
            case "persistence": Persistence(server, sb); return true;
            case "cpu": Cpu(sb); return true;
            case "keyspace":
                sb.Append("# Keyspace\r\n");
                for (int db = 0; db < server.Store.Databases; db++)
                {
                    long keys = server.Store.KeyCount(db);
                    if (keys > 0) sb.Append($"db{db}:keys={keys},expires={server.Store.ExpiringCount(db)},avg_ttl=0\r\n");
                }
                return true;
            default: return false;
        }
    }

    private static void Line(StringBuilder sb, string field, object value) =>
        sb.Append(field).Append(':').Append(Convert.ToString(value, CultureInfo.InvariantCulture)).Append("\r\n");

    internal static string Human(long bytes)
    {
        string[] units = ["B", "K", "M", "G", "T"];
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.Length - 1) { v /= 1024; u++; }
        return u == 0 ? bytes + "B" : v.ToString("0.00", CultureInfo.InvariantCulture) + units[u];
    }

    private static void Server(RespServer server, StringBuilder sb)
    {
        var stats = server.Stats;
        var uptime = TimeSpan.FromSeconds((Stopwatch.GetTimestamp() - stats.StartTimestamp) / (double)Stopwatch.Frequency);
        sb.Append("# Server\r\n");
        Line(sb, "redis_version", ConnectionCommands.CompatibleRedisVersion);
        Line(sb, "garnet_version", typeof(InfoBuilder).Assembly.GetName().Version?.ToString(3) ?? "0.0.0");
        Line(sb, "redis_mode", "standalone");
        Line(sb, "os", RuntimeInformation.OSDescription + " " + RuntimeInformation.OSArchitecture);
        Line(sb, "arch_bits", IntPtr.Size * 8);
        Line(sb, "runtime", RuntimeInformation.FrameworkDescription);
        Line(sb, "gc_mode", System.Runtime.GCSettings.IsServerGC ? "server" : "workstation");
        Line(sb, "multiplexing_api", OperatingSystem.IsLinux() ? "epoll" : "iocp");
        Line(sb, "process_id", Environment.ProcessId);
        Line(sb, "run_id", server.RunId);
        Line(sb, "tcp_port", server.EndPoints.Count > 0 ? server.EndPoints[0].Port : server.Settings.Port);
        Line(sb, "server_time_usec", (DateTimeOffset.UtcNow - DateTimeOffset.UnixEpoch).Ticks / 10);
        Line(sb, "uptime_in_seconds", (long)uptime.TotalSeconds);
        Line(sb, "uptime_in_days", (long)uptime.TotalDays);
        Line(sb, "executable", Environment.ProcessPath ?? "");
        Line(sb, "io_threads_active", 0);
        for (int i = 0; i < server.EndPoints.Count; i++)
        {
            var ep = server.EndPoints[i];
            Line(sb, "listener" + i, $"name=tcp,bind={ep.Address},port={ep.Port}");
        }
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
        Line(sb, "blocked_clients", 0);
        Line(sb, "tracking_clients", 0);
        Line(sb, "pubsub_clients", 0);
    }

    private static void Memory(RespServer server, StringBuilder sb)
    {
        var gc = GC.GetGCMemoryInfo();
        long used = GC.GetTotalMemory(false);
        long rss = Environment.WorkingSet;
        long peak = Math.Max(server.Stats.PeakMemory, used);
        sb.Append("# Memory\r\n");
        Line(sb, "used_memory", used);
        Line(sb, "used_memory_human", Human(used));
        Line(sb, "used_memory_rss", rss);
        Line(sb, "used_memory_rss_human", Human(rss));
        Line(sb, "used_memory_peak", peak);
        Line(sb, "used_memory_peak_human", Human(peak));
        Line(sb, "maxmemory", server.Settings.MemoryBytes);
        Line(sb, "maxmemory_human", Human(server.Settings.MemoryBytes));
        Line(sb, "gc_heap_size", gc.HeapSizeBytes);
        Line(sb, "gc_committed", gc.TotalCommittedBytes);
        Line(sb, "gc_collections_gen0", GC.CollectionCount(0));
        Line(sb, "gc_collections_gen1", GC.CollectionCount(1));
        Line(sb, "gc_collections_gen2", GC.CollectionCount(2));
        Line(sb, "gc_total_pause_ms", (long)GC.GetTotalPauseDuration().TotalMilliseconds);
        Line(sb, "mem_allocator", ".NET GC");
    }

    private static void Stats(RespServer server, StringBuilder sb)
    {
        var st = server.Stats;
        var (commands, errors, netIn, netOut) = st.Totals();
        sb.Append("# Stats\r\n");
        Line(sb, "total_connections_received", st.ConnectionsReceived);
        Line(sb, "total_commands_processed", commands);
        Line(sb, "instantaneous_ops_per_sec", st.InstantaneousOpsPerSec);
        Line(sb, "total_net_input_bytes", netIn);
        Line(sb, "total_net_output_bytes", netOut);
        Line(sb, "instantaneous_input_kbps", st.InstantaneousInputKbps.ToString("0.00", CultureInfo.InvariantCulture));
        Line(sb, "instantaneous_output_kbps", st.InstantaneousOutputKbps.ToString("0.00", CultureInfo.InvariantCulture));
        Line(sb, "rejected_connections", st.RejectedConnections);
        Line(sb, "total_error_replies", errors);
    }

    private static void Persistence(RespServer server, StringBuilder sb)
    {
        var cp = server.Checkpoints;
        var recovered = server.Store.Recovered;
        long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        sb.Append("# Persistence\r\n");
        Line(sb, "loading", 0);
        Line(sb, "async_loading", 0);
        Line(sb, "rdb_changes_since_last_save", cp.ChangesSinceLastSave);
        Line(sb, "rdb_bgsave_in_progress", cp.InProgress ? 1 : 0);
        Line(sb, "rdb_last_save_time", cp.LastSaveUnixSeconds);
        Line(sb, "rdb_last_bgsave_status", cp.LastSaveOk ? "ok" : "err");
        Line(sb, "rdb_last_bgsave_time_sec", cp.LastDurationSeconds);
        Line(sb, "rdb_current_bgsave_time_sec", cp.CurrentStartUnixSeconds < 0 ? -1 : now - cp.CurrentStartUnixSeconds);
        Line(sb, "rdb_saves", cp.Saves);
        Line(sb, "rdb_last_load_keys_expired", recovered.ExpiredSkipped);
        Line(sb, "rdb_last_load_keys_loaded", recovered.Keys);
        Line(sb, "checkpoint_last_file", cp.LastFile is null ? "" : Path.GetFileName(cp.LastFile));
        Line(sb, "checkpoint_last_keys", cp.LastKeys);
        Line(sb, "checkpoint_last_bytes", cp.LastBytes);
        Line(sb, "checkpoint_save_rules", Garnet.server.Persistence.SaveRules.Format(cp.Rules));
        var aof = server.Aof;
        Line(sb, "aof_enabled", aof is null ? 0 : 1);
        Line(sb, "aof_rewrite_in_progress", aof is not null && cp.InProgress ? 1 : 0);
        Line(sb, "aof_last_write_status", aof is null || aof.LastWriteOk ? "ok" : "err");
        if (aof is not null)
        {
            Line(sb, "aof_fsync", aof.Policy.ToString().ToLowerInvariant());
            Line(sb, "aof_current_file", Garnet.server.Persistence.AofLog.FileName(aof.CurrentSequence));
            Line(sb, "aof_appended_bytes", aof.AppendedLsn);
            Line(sb, "aof_durable_bytes", aof.DurableLsn);
            Line(sb, "aof_replayed_commands", server.Replayed.Commands);
        }
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
    }

    private static void Cpu(StringBuilder sb)
    {
        using var p = Process.GetCurrentProcess();
        sb.Append("# CPU\r\n");
        Line(sb, "used_cpu_sys", p.PrivilegedProcessorTime.TotalSeconds.ToString("0.000000", CultureInfo.InvariantCulture));
        Line(sb, "used_cpu_user", p.UserProcessorTime.TotalSeconds.ToString("0.000000", CultureInfo.InvariantCulture));
        Line(sb, "used_cpu_sys_children", "0.000000");
        Line(sb, "used_cpu_user_children", "0.000000");
    }
}
