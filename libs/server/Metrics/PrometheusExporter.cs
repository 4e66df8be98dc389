// PrometheusExporter: the server's figures as Prometheus metrics (prometheus-net's registry and text exposition). Nothing
// here is on the command path: the figures are read from the server's own counters (CommandStatistics, ServerStatistics,
// the log, the checkpointer, the AOF, the GC) when /metrics is scraped, and handed to prometheus-net then.
// Invariants:
//  - Counters only grow: a CONFIG RESETSTAT (our counters go back to 0) is seen as a restart of the count, so the exported
//    counter keeps growing (Prometheus's rate() stays right).
//  - Latency histograms are exported in seconds with fixed buckets (10 µs .. 10 s); each of our buckets is observed at its
//    highest value, so a count lands in the right Prometheus bucket (our buckets are powers of two split in 32).
//  - One exporter per server, with its own registry (several servers in one process do not mix).
using Prometheus;

namespace Garnet.server.Metrics;

public sealed class PrometheusExporter
{
    private static readonly double[] s_latencyBuckets =
        [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

    private readonly RespServer _server;
    private readonly object _lock = new();
    public CollectorRegistry Registry { get; } = Prometheus.Metrics.NewCustomRegistry();

    private readonly Counter _calls, _usec, _rejected, _failed, _errors, _hits, _misses, _connections, _rejectedConnections,
        _gcPause, _gcCollections, _netIn, _netOut, _commandsTotal;
    private readonly Histogram _latency;
    private readonly Gauge _clients, _blocked, _opsPerSec, _usedMemory, _rss, _logRegion, _logAddress, _diskBytes, _keys,
        _cpInProgress, _cpLastOk, _cpLastTime, _cpChanges, _cpLastBytes, _aofEnabled, _aofLastOk, _aofAppended, _aofDurable,
        _aofSize, _gcHeap, _uptime;

    // what was exported last, per counter child, to turn our resettable counters into growing ones
    private readonly Dictionary<(Counter, string), double> _last = new();
    private readonly Dictionary<int, long[]> _lastHistograms = new();
    private int _generation;

    public PrometheusExporter(RespServer server)
    {
        _server = server;
        var f = Prometheus.Metrics.WithCustomRegistry(Registry);
        _calls = f.CreateCounter("garnet_commands_processed_total", "Calls of each command (rate() gives commands per second).", "cmd");
        _usec = f.CreateCounter("garnet_command_duration_seconds_total", "Time spent running each command.", "cmd");
        _rejected = f.CreateCounter("garnet_command_rejected_calls_total", "Calls refused before running (arity, NOAUTH, MISCONF, ...).", "cmd");
        _failed = f.CreateCounter("garnet_command_failed_calls_total", "Calls that ran and answered an error.", "cmd");
        _latency = f.CreateHistogram("garnet_command_latency_seconds", "Latency of each command (while latency-tracking is on).",
            new HistogramConfiguration { LabelNames = ["cmd"], Buckets = s_latencyBuckets });
        _commandsTotal = f.CreateCounter("garnet_total_commands_processed", "Commands processed (INFO total_commands_processed).");
        _opsPerSec = f.CreateGauge("garnet_instantaneous_ops_per_sec", "Commands per second over the last 1.6 s (INFO instantaneous_ops_per_sec).");
        _errors = f.CreateCounter("garnet_error_replies_total", "Error replies by error prefix (INFO errorstats).", "prefix");
        _hits = f.CreateCounter("garnet_keyspace_hits_total", "Successful key lookups (INFO keyspace_hits).");
        _misses = f.CreateCounter("garnet_keyspace_misses_total", "Failed key lookups (INFO keyspace_misses).");
        _keys = f.CreateGauge("garnet_keys", "Keys per database.", "db");
        _clients = f.CreateGauge("garnet_connected_clients", "Client connections open now.");
        _blocked = f.CreateGauge("garnet_blocked_clients", "Clients waiting in a blocking command.");
        _connections = f.CreateCounter("garnet_connections_received_total", "Connections accepted.");
        _rejectedConnections = f.CreateCounter("garnet_rejected_connections_total", "Connections refused (maxclients, protected mode).");
        _netIn = f.CreateCounter("garnet_net_input_bytes_total", "Bytes received from clients.");
        _netOut = f.CreateCounter("garnet_net_output_bytes_total", "Bytes sent to clients.");
        _usedMemory = f.CreateGauge("garnet_used_memory_bytes", "INFO used_memory: the store's native memory plus the managed heap in use.");
        _rss = f.CreateGauge("garnet_used_memory_rss_bytes", "Resident memory of the process.");
        _logRegion = f.CreateGauge("garnet_log_region_bytes", "Bytes of the hybrid log in each region: mutable (in memory, updated in place), read_only (in memory), disk (only on disk).", "region");
        _logAddress = f.CreateGauge("garnet_log_address", "The hybrid log's addresses (begin <= head <= read_only <= tail).", "address");
        _diskBytes = f.CreateGauge("garnet_disk_bytes", "Bytes of the files in the data directory (log segments, checkpoints, AOF).", "kind");
        _cpInProgress = f.CreateGauge("garnet_checkpoint_in_progress", "1 while a checkpoint (or AOF rewrite) runs.");
        _cpLastOk = f.CreateGauge("garnet_checkpoint_last_status_ok", "1 when the last checkpoint succeeded.");
        _cpLastTime = f.CreateGauge("garnet_checkpoint_last_save_timestamp_seconds", "Unix time of the last successful checkpoint.");
        _cpChanges = f.CreateGauge("garnet_changes_since_last_save", "Writes since the last checkpoint (INFO rdb_changes_since_last_save).");
        _cpLastBytes = f.CreateGauge("garnet_checkpoint_last_bytes", "Size of the last checkpoint file.");
        _aofEnabled = f.CreateGauge("garnet_aof_enabled", "1 while the append-only file is on.");
        _aofLastOk = f.CreateGauge("garnet_aof_last_write_ok", "1 when the last AOF write succeeded.");
        _aofAppended = f.CreateGauge("garnet_aof_appended_bytes", "Bytes appended to the AOF since start.");
        _aofDurable = f.CreateGauge("garnet_aof_durable_bytes", "Bytes of the AOF known to be on disk (fsynced).");
        _aofSize = f.CreateGauge("garnet_aof_current_size_bytes", "Size of the AOF files.");
        _gcPause = f.CreateCounter("garnet_gc_pause_seconds_total", "Time the .NET GC paused the process.");
        _gcCollections = f.CreateCounter("garnet_gc_collections_total", "GC collections per generation.", "generation");
        _gcHeap = f.CreateGauge("garnet_gc_heap_bytes", "Managed heap size.");
        _uptime = f.CreateGauge("garnet_uptime_seconds", "Seconds since the server started.");
        Registry.AddBeforeCollectCallback(Collect);
    }

    /// <summary>The text exposition of every metric, as /metrics serves it.</summary>
    public async Task WriteAsync(Stream output, CancellationToken cancel = default) => await Registry.CollectAndExportAsTextAsync(output, cancel).ConfigureAwait(false);

    private void Grow(Counter c, string label, double now)
    {
        var key = (c, label);
        double last = _last.TryGetValue(key, out var l) ? l : 0;
        double delta = now >= last ? now - last : now; // went down: reset since, count from 0
        _last[key] = now;
        if (delta <= 0) return;
        if (label.Length == 0) c.Inc(delta);
        else c.WithLabels(label).Inc(delta);
    }

    private void Collect()
    {
        lock (_lock)
        {
            var s = _server;
            int generation = s.CommandStats.Generation;
            if (generation != _generation)
            {
                // CONFIG RESETSTAT since the last scrape: what our counters hold now was all counted after it.
                _generation = generation;
                foreach (var key in _last.Keys.Where(k => k.Item1 != _gcPause && k.Item1 != _gcCollections).ToList()) _last[key] = 0;
                foreach (var id in _lastHistograms.Keys.ToList()) _lastHistograms[id] = new long[LatencyHistogram.BucketCount];
            }
            foreach (var cmd in s.Commands.AllWithSubcommands)
            {
                var fig = s.CommandStats.Read(cmd.Id);
                if (fig.Any || _last.ContainsKey((_calls, cmd.FullName)))
                {
                    Grow(_calls, cmd.FullName, fig.Calls);
                    Grow(_usec, cmd.FullName, fig.Usec / 1e6);
                    Grow(_rejected, cmd.FullName, fig.RejectedCalls);
                    Grow(_failed, cmd.FullName, fig.FailedCalls);
                }
                var h = s.CommandStats.Histogram(cmd.Id);
                if (h is null && !_lastHistograms.ContainsKey(cmd.Id)) continue;
                h ??= new long[LatencyHistogram.BucketCount];
                _lastHistograms.TryGetValue(cmd.Id, out var before);
                bool reset = before is not null && Enumerable.Range(0, h.Length).Any(i => h[i] < before[i]);
                var child = _latency.WithLabels(cmd.FullName);
                for (int i = 0; i < h.Length; i++)
                {
                    long delta = reset || before is null ? h[i] : h[i] - before[i];
                    if (delta > 0) child.Observe(LatencyHistogram.HighestOf(i) / 1e9, delta);
                }
                _lastHistograms[cmd.Id] = h;
            }
            var t = s.Stats.Totals();
            Grow(_commandsTotal, "", t.Commands);
            _opsPerSec.Set(s.Stats.InstantaneousOpsPerSec);
            foreach (var (code, count) in s.Stats.Errors.Snapshot()) Grow(_errors, code, count);
            Grow(_hits, "", t.KeyspaceHits);
            Grow(_misses, "", t.KeyspaceMisses);
            Grow(_netIn, "", t.NetIn);
            Grow(_netOut, "", t.NetOut);
            Grow(_connections, "", s.Stats.ConnectionsReceived);
            Grow(_rejectedConnections, "", s.Stats.RejectedConnections);
            _clients.Set(s.Clients.Count);
            _blocked.Set(s.Blocked.Count);
            for (int db = 0; db < s.Store.Databases; db++)
            {
                long keys = s.Store.KeyCount(db);
                if (keys > 0 || _dbsSeen.Contains(db))
                {
                    _keys.WithLabels(db.ToString(System.Globalization.CultureInfo.InvariantCulture)).Set(keys);
                    _dbsSeen.Add(db);
                }
            }
            _usedMemory.Set(MemoryFigures.UsedMemory(s));
            using (var p = System.Diagnostics.Process.GetCurrentProcess()) _rss.Set(p.WorkingSet64);
            var log = s.Store.Store.Log;
            long begin = log.BeginAddress, head = log.HeadAddress, ro = log.ReadOnlyAddress, tail = log.TailAddress;
            _logRegion.WithLabels("mutable").Set(Math.Max(0, tail - ro));
            _logRegion.WithLabels("read_only").Set(Math.Max(0, ro - head));
            _logRegion.WithLabels("disk").Set(Math.Max(0, head - begin));
            _logAddress.WithLabels("begin").Set(begin);
            _logAddress.WithLabels("head").Set(head);
            _logAddress.WithLabels("read_only").Set(ro);
            _logAddress.WithLabels("tail").Set(tail);
            foreach (var (kind, bytes) in DiskUsage(s.Settings.Dir)) _diskBytes.WithLabels(kind).Set(bytes);
            var cp = s.Checkpoints;
            _cpInProgress.Set(cp.InProgress ? 1 : 0);
            _cpLastOk.Set(cp.LastSaveOk ? 1 : 0);
            _cpLastTime.Set(cp.LastSaveUnixSeconds);
            _cpChanges.Set(cp.ChangesSinceLastSave);
            _cpLastBytes.Set(cp.LastBytes);
            var aof = s.Aof;
            _aofEnabled.Set(aof is null ? 0 : 1);
            _aofLastOk.Set(aof is null || aof.LastWriteOk ? 1 : 0);
            _aofAppended.Set(aof?.AppendedLsn ?? 0);
            _aofDurable.Set(aof?.DurableLsn ?? 0);
            long aofSize = 0;
            foreach (var (path, _) in Persistence.AofLog.Existing(s.Settings.Dir))
                try { aofSize += new FileInfo(path).Length; } catch (IOException) { }
            _aofSize.Set(aofSize);
            Grow(_gcPause, "", GC.GetTotalPauseDuration().TotalSeconds);
            for (int g = 0; g <= GC.MaxGeneration; g++) Grow(_gcCollections, g.ToString(), GC.CollectionCount(g));
            _gcHeap.Set(GC.GetGCMemoryInfo().HeapSizeBytes);
            _uptime.Set((DateTimeOffset.UtcNow - s.Stats.StartTime).TotalSeconds);
        }
    }

    private readonly HashSet<int> _dbsSeen = new(); // databases that had keys once: shown from then on, also at 0

    /// <summary>Bytes in the data directory by kind: checkpoint (*.rdb), aof (*.aof), log (the rest: segment files).</summary>
    private static IEnumerable<(string, long)> DiskUsage(string dir)
    {
        long rdb = 0, aof = 0, log = 0;
        try
        {
            foreach (var f in new DirectoryInfo(dir).EnumerateFiles("*", SearchOption.AllDirectories))
            {
                long n;
                try { n = f.Length; } catch (IOException) { continue; }
                if (f.Name.EndsWith(".rdb", StringComparison.Ordinal)) rdb += n;
                else if (f.Name.EndsWith(".aof", StringComparison.Ordinal)) aof += n;
                else log += n;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
        return [("checkpoint", rdb), ("aof", aof), ("log", log), ("total", rdb + aof + log)];
    }
}
