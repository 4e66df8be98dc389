// MemoryCommands: MEMORY STATS, DOCTOR, MALLOC-STATS, PURGE and HELP (MEMORY USAGE is in ObjectCommands). The figures
// are Metrics/MemoryFigures', the same as INFO memory's; the "allocator" here is the .NET GC.
using System.Globalization;
using System.Runtime;
using System.Text;
using Garnet.server.Metrics;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class MemoryCommands
{
    /// <summary>MEMORY STATS: Redis 7.2's map, key for key (27 entries plus one per database that holds keys).</summary>
    public static void Stats(CommandContext s)
    {
        var m = MemoryFigures.Measure(s.Server);
        var store = s.Server.Store;
        var dbs = Enumerable.Range(0, store.Databases).Select(db => (db, keys: store.KeyCount(db))).Where(d => d.keys > 0).ToList();
        long totalKeys = dbs.Sum(d => d.keys);
        var w = s.Writer;
        w.WriteMapHeader(27 + dbs.Count);
        void Int(string name, long value) { w.WriteBulkString(name); w.WriteInteger(value); }
        void Dbl(string name, double value) { w.WriteBulkString(name); w.WriteDouble(value); }
        Int("peak.allocated", m.Peak);
        Int("total.allocated", m.Used);
        Int("startup.allocated", m.Startup);
        Int("replication.backlog", 0);
        Int("clients.slaves", 0);
        Int("clients.normal", m.ClientsNormal);
        Int("cluster.links", 0);
        Int("aof.buffer", m.AofBuffer);
        Int("lua.caches", 0);
        Int("functions.caches", 0);
        foreach (var (db, keys) in dbs)
        {
            // One hash index serves every database: each gets its share by key count. Expiry times live in the records.
            w.WriteBulkString("db." + db.ToString(CultureInfo.InvariantCulture));
            w.WriteMapHeader(3);
            Int("overhead.hashtable.main", totalKeys == 0 ? 0 : m.StoreIndex * keys / totalKeys);
            Int("overhead.hashtable.expires", 0);
            Int("overhead.hashtable.slot-to-keys", 0);
        }
        Int("overhead.total", m.Overhead);
        Int("keys.count", totalKeys);
        Int("keys.bytes-per-key", totalKeys == 0 ? 0 : Math.Max(0, m.Used - m.Startup) / totalKeys);
        Int("dataset.bytes", m.Dataset);
        Dbl("dataset.percentage", m.DatasetPercent);
        Dbl("peak.percentage", m.PeakPercent);
        Int("allocator.allocated", m.GcAllocated);
        Int("allocator.active", m.GcHeapSize);
        Int("allocator.resident", m.GcCommitted);
        Dbl("allocator-fragmentation.ratio", m.AllocatorFragRatio);
        Int("allocator-fragmentation.bytes", m.AllocatorFragBytes);
        Dbl("allocator-rss.ratio", m.AllocatorRssRatio);
        Int("allocator-rss.bytes", m.AllocatorRssBytes);
        Dbl("rss-overhead.ratio", m.RssOverheadRatio);
        Int("rss-overhead.bytes", m.RssOverheadBytes);
        Dbl("fragmentation", m.FragmentationRatio);
        Int("fragmentation.bytes", m.FragmentationBytes);
    }

    /// <summary>MEMORY DOCTOR: Redis's checks (peak, fragmentation, client buffers) on our figures, as verbatim text.</summary>
    public static void Doctor(CommandContext s) => s.Writer.WriteVerbatimString(DoctorReport(MemoryFigures.Measure(s.Server), s.Server.Clients.Count));

    public static string DoctorReport(MemoryFigures m, int clients)
    {
        // Measured against the figures at start: the .NET runtime alone takes tens of MB of RSS, which no workload
        // causes and no command gives back (Redis's rules assume a process that starts near zero).
        long used = m.Used - m.Startup, rss = m.Rss - m.StartupRss;
        if (used < 5L << 20)
            return "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. " +
                   "Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n";
        var issues = new List<string>();
        if (m.Peak - m.Startup > used * 1.5)
            issues.Add(" * Peak memory: in the past this instance used more than 150% of the memory it uses now. The .NET GC gives memory " +
                       "back to the system over time; MEMORY PURGE runs a full, compacting collection now.");
        if (rss > used * 1.4 && rss - used > 10 << 20)
            issues.Add(" * High total RSS: since start, the resident set size grew more than 1.4 times as much as used_memory (and by more than 10MB more). This is usually " +
                       "memory the GC keeps after a peak (see above); MEMORY PURGE may give it back.");
        if (clients > 0 && m.ClientsNormal / clients > 200 * 1024)
            issues.Add(" * Big client buffers: the clients' buffers take more than 200K per client on average: large pipelines or large " +
                       "replies. Use CLIENT LIST to find which clients.");
        if (issues.Count == 0) return "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n";
        var sb = new StringBuilder("Sam, I detected a few issues in this Redis instance memory implants:\n\n");
        foreach (var i in issues) sb.Append(i).Append("\n\n");
        sb.Append("I'm here to keep you safe, Sam. I want to help you.\n");
        return sb.ToString();
    }

    /// <summary>MEMORY MALLOC-STATS: the .NET GC's own figures (Redis prints jemalloc's), as verbatim text.</summary>
    public static void MallocStats(CommandContext s)
    {
        var gc = GC.GetGCMemoryInfo();
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"___ Begin .NET GC statistics ___\n");
        sb.Append(CultureInfo.InvariantCulture, $"mode: {(GCSettings.IsServerGC ? "server" : "workstation")}, latency mode: {GCSettings.LatencyMode}, concurrent: {gc.Concurrent}\n");
        sb.Append(CultureInfo.InvariantCulture, $"allocated (in use): {GC.GetTotalMemory(false)}\n");
        sb.Append(CultureInfo.InvariantCulture, $"total allocated since start: {GC.GetTotalAllocatedBytes()}\n");
        sb.Append(CultureInfo.InvariantCulture, $"heap size: {gc.HeapSizeBytes}, fragmented: {gc.FragmentedBytes}, committed: {gc.TotalCommittedBytes}, promoted: {gc.PromotedBytes}\n");
        sb.Append(CultureInfo.InvariantCulture, $"memory load: {gc.MemoryLoadBytes}, high memory load threshold: {gc.HighMemoryLoadThresholdBytes}, total available: {gc.TotalAvailableMemoryBytes}\n");
        sb.Append(CultureInfo.InvariantCulture, $"collections: gen0 {GC.CollectionCount(0)}, gen1 {GC.CollectionCount(1)}, gen2 {GC.CollectionCount(2)}; pause total {GC.GetTotalPauseDuration().TotalMilliseconds:0} ms, last {gc.PauseTimePercentage:0.00}% of time\n");
        string[] generations = ["gen0", "gen1", "gen2", "loh", "poh"];
        var gens = gc.GenerationInfo;
        for (int i = 0; i < gens.Length && i < generations.Length; i++)
            sb.Append(CultureInfo.InvariantCulture, $"{generations[i]}: size before {gens[i].SizeBeforeBytes}, after {gens[i].SizeAfterBytes}, fragmentation before {gens[i].FragmentationBeforeBytes}, after {gens[i].FragmentationAfterBytes}\n");
        sb.Append("--- End .NET GC statistics ---\n");
        s.Writer.WriteVerbatimString(sb.ToString());
    }

    /// <summary>MEMORY PURGE: a full, blocking, compacting collection (large object heap included) that returns free memory.</summary>
    public static void Purge(CommandContext s)
    {
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
        s.Writer.WriteOk();
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "MEMORY",
    [
        "DOCTOR", "    Return memory problems reports.",
        "MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
        "PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS", "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]", "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>MEMORY.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "memory", Arity = -2, Acl = A.Slow,
                Group = "server", Since = "4.0.0", Summary = "A container for memory diagnostics commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    ..ObjectCommands.MemorySubcommandDeclarations(),
                    new()
                    {
                        Name = "stats", Arity = 2,
                        Since = "4.0.0", Summary = "Returns details about memory usage.",
                        Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"],
                        Handler = Stats,
                    },
                    new()
                    {
                        Name = "doctor", Arity = 2,
                        Since = "4.0.0", Summary = "Outputs a memory problems report.",
                        Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"],
                        Handler = Doctor,
                    },
                    new()
                    {
                        Name = "malloc-stats", Arity = 2,
                        Since = "4.0.0", Summary = "Returns the allocator statistics.",
                        Complexity = "Depends on how much memory is allocated, could be slow",
                        Tips = ["nondeterministic_output", "request_policy:all_shards", "response_policy:special"],
                        Handler = MallocStats,
                    },
                    new()
                    {
                        Name = "purge", Arity = 2,
                        Since = "4.0.0", Summary = "Asks the allocator to release memory.",
                        Complexity = "Depends on how much memory is allocated, could be slow",
                        Tips = ["request_policy:all_shards", "response_policy:all_succeeded"],
                        Handler = Purge,
                    },
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale,
                        Since = "4.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
