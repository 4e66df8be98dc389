// ConfigParameters: the parameters CONFIG GET / CONFIG SET know, with Redis's names and value forms. A value is always
// what is in force now (read from ServerSettings or the running parts of the server, never a copy).
// Invariants:
//  - Prepare validates a value without changing anything and returns the change to apply, so CONFIG SET
//    of several parameters is all-or-nothing.
//  - A parameter without Prepare is immutable at run time (set it at start-up with an option, where one exists).
//  - Parameters for features this server does not have are listed only where their value truthfully describes
//    what it does (e.g. hz 10); they are immutable.
using System.Globalization;
using Garnet.common.Resp;
using Garnet.common.Util;
using Garnet.server.Objects;
using Garnet.server.Persistence;

namespace Garnet.server.Config;

public sealed class ConfigParameter
{
    public required string Name { get; init; }
    public required Func<RespServer, string> Get { get; init; }
    /// <summary>Validates a new value; returns the change to apply, or an error text (Redis's wording).</summary>
    public Func<RespServer, string, (Action? apply, string? error)>? Prepare { get; init; }
}

public static class ConfigParameters
{
    private static string Int(long n) => n.ToString(CultureInfo.InvariantCulture);
    private static string YesNo(bool b) => b ? "yes" : "no";
    private static ConfigParameter Fixed(string name, string value) => new() { Name = name, Get = _ => value };

    public static readonly IReadOnlyList<ConfigParameter> All =
    [
        // network
        new() { Name = "bind", Get = s => string.Join(' ', s.Settings.Bind) },
        new() { Name = "port", Get = s => Int(s.EndPoints.Count > 0 ? s.EndPoints[0].Port : s.Settings.Port) },
        new()
        {
            Name = "protected-mode", Get = s => YesNo(s.Settings.ProtectedMode),
            Prepare = (s, v) => Bool(v, b => s.Settings.ProtectedMode = b),
        },
        Fixed("tcp-backlog", "511"),
        Fixed("tcp-keepalive", "0"),
        Fixed("tls-port", "0"),
        new()
        {
            Name = "timeout", Get = s => Int(s.Settings.IdleTimeoutSeconds),
            Prepare = (s, v) => IntegerValue(v, 0, int.MaxValue, n => s.Settings.IdleTimeoutSeconds = (int)n),
        },
        new()
        {
            Name = "maxclients", Get = s => Int(s.Settings.MaxClients),
            Prepare = (s, v) => IntegerValue(v, 1, int.MaxValue, n => s.Settings.MaxClients = (int)n),
        },
        new()
        {
            Name = "auth-max-failures", Get = s => Int(s.Settings.AuthMaxFailures),
            Prepare = (s, v) => IntegerValue(v, 0, int.MaxValue, n => s.Settings.AuthMaxFailures = (int)n),
        },
        // scripting (Scripting/ScriptRunner)
        new()
        {
            Name = "busy-reply-threshold", Get = s => Int(s.Scripts.BusyThresholdMs),
            Prepare = (s, v) => IntegerValue(v, 0, int.MaxValue, n => s.Scripts.BusyThresholdMs = (int)n),
        },
        new()
        {
            Name = "lua-time-limit", Get = s => Int(s.Scripts.BusyThresholdMs),
            Prepare = (s, v) => IntegerValue(v, 0, int.MaxValue, n => s.Scripts.BusyThresholdMs = (int)n),
        },
        new()
        {
            Name = "lua-memory-limit", Get = s => Int(s.Scripts.MemoryLimit),
            Prepare = (s, v) => IntegerValue(v, 0, long.MaxValue, n => s.Scripts.MemoryLimit = n),
        },
        // general
        Fixed("daemonize", "no"),
        Fixed("supervised", "no"),
        new() { Name = "enable-debug-command", Get = s => ProtectedActions.Name(s.Settings.EnableDebugCommand) }, // immutable
        Fixed("pidfile", ""),
        Fixed("logfile", ""),
        new()
        {
            Name = "loglevel", Get = s => s.Settings.LogLevel,
            Prepare = (s, v) =>
            {
                var level = v.ToLowerInvariant();
                if (!LogLevels.Contains(level)) return (null, "argument(s) must be one of the following: debug, verbose, notice, warning, nothing");
                return (() => { s.Settings.LogLevel = level; s.Settings.LogLevelChanged?.Invoke(level); }, null);
            },
        },
        new() { Name = "databases", Get = s => Int(s.Settings.Databases) },
        Fixed("hz", "10"),
        Fixed("dynamic-hz", "no"),
        Fixed("cluster-enabled", "no"),
        new()
        {
            Name = "notify-keyspace-events", Get = s => PubSub.KeyspaceEvents.Format((PubSub.NotifyClass)s.Settings.NotifyKeyspaceEvents),
            Prepare = (s, v) => PubSub.KeyspaceEvents.TryParse(v, out var flags)
                ? (() => s.Settings.NotifyKeyspaceEvents = (int)flags, null)
                : (null, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
        },
        // security
        new()
        {
            Name = "requirepass", Get = s => s.Settings.RequirePass ?? "",
            Prepare = (s, v) => (() => s.Settings.RequirePass = v.Length == 0 ? null : v, null),
        },
        // memory
        new()
        {
            Name = "maxmemory", Get = s => Int(s.Settings.MemoryBytes),
            Prepare = (s, v) =>
            {
                // The engine can lower its budget at run time (pages beyond it are flushed and freed as new ones are
                // needed), but not raise it beyond the page frames it was started with.
                long startBudget = s.Store.Store.Settings.MemoryBytes;
                return MemoryValue(v, 1024 * 1024, startBudget, n =>
                {
                    s.Store.Store.Log.MemoryBudget = n;
                    s.Settings.MemoryBytes = n;
                });
            },
        },
        new()
        {
            // The store never evicts: what does not fit in memory is kept on disk (docs/storage.md).
            Name = "maxmemory-policy", Get = _ => "noeviction",
            Prepare = (_, v) => v.Equals("noeviction", StringComparison.OrdinalIgnoreCase)
                ? (() => { }, null) : (null, "argument(s) must be one of the following: noeviction"),
        },
        // limits
        new()
        {
            Name = "proto-max-bulk-len", Get = s => Int(s.Settings.Limits.ProtoMaxBulkLen),
            Prepare = (s, v) => MemoryValue(v, 1024 * 1024, RespLimits.AbsoluteMaxBuffer - 2, n => s.Settings.Limits.ProtoMaxBulkLen = n),
        },
        new()
        {
            Name = "client-query-buffer-limit", Get = s => Int(s.Settings.Limits.QueryBufferLimit),
            Prepare = (s, v) => MemoryValue(v, 1024 * 1024, RespLimits.AbsoluteMaxBuffer - 1, n => s.Settings.Limits.QueryBufferLimit = n),
        },
        new()
        {
            // The normal class's hard limit bounds one reply batch (replies are sent as they are produced, so its soft limit
            // has nothing to measure); the pubsub class bounds pushed messages not yet sent (RespLimits.Push). The normal
            // soft part and the replica class are kept for CONFIG GET only.
            Name = "client-output-buffer-limit",
            Get = s => FormatOutputBufferLimit(s.Settings),
            Prepare = (s, v) =>
            {
                if (!TryParseOutputBufferLimit(v, out var classes, out var err)) return (null, err);
                return (() => ApplyOutputBufferLimit(s.Settings, classes), null);
            },
        },
        // persistence
        new() { Name = "dir", Get = s => Path.GetFullPath(s.Settings.Dir) },
        new()
        {
            // Checkpoints are numbered: the newest one's name (or the next one's, before the first).
            Name = "dbfilename",
            Get = s => Checkpointer.Existing(s.Settings.Dir).Select(f => Path.GetFileName(f.path)).FirstOrDefault() ?? Checkpointer.FilePrefix + "1" + Checkpointer.FileSuffix,
        },
        new()
        {
            Name = "save", Get = s => SaveRules.Format(s.Checkpoints.Rules),
            Prepare = (s, v) =>
            {
                var rules = SaveRules.Parse(v);
                if (rules is null) return (null, "Invalid save parameters");
                return (() => { s.Settings.SaveRules = rules; s.Checkpoints.Rules = rules; }, null);
            },
        },
        Fixed("rdbcompression", "no"),
        Fixed("rdbchecksum", "yes"),
        Fixed("stop-writes-on-bgsave-error", "no"),
        new()
        {
            Name = "appendonly", Get = s => YesNo(s.Aof is not null),
            Prepare = (s, v) => Bool(v, on => { if (on) AofSwitch.Enable(s); else AofSwitch.Disable(s); }),
        },
        new()
        {
            Name = "appendfsync", Get = s => FsyncName(s.Settings.AofFsync),
            Prepare = (s, v) =>
            {
                AofFsync? policy = v.ToLowerInvariant() switch
                {
                    "always" => AofFsync.Always,
                    "everysec" => AofFsync.EverySec,
                    "no" => AofFsync.No,
                    _ => null,
                };
                if (policy is not { } p) return (null, "argument(s) must be one of the following: always, everysec, no");
                return (() =>
                {
                    s.Settings.AofFsync = p;
                    if (s.Aof is { } aof) aof.Policy = p;
                }, null);
            },
        },
        // collection encodings (Objects/EncodingLimits; process-wide), each under its Redis 7 name and its older alias
        .. Encoding("hash-max-listpack-entries", "hash-max-ziplist-entries", () => EncodingLimits.HashMaxListpackEntries, v => EncodingLimits.HashMaxListpackEntries = v, memory: false),
        .. Encoding("hash-max-listpack-value", "hash-max-ziplist-value", () => EncodingLimits.HashMaxListpackValue, v => EncodingLimits.HashMaxListpackValue = v, memory: true),
        .. Encoding("set-max-intset-entries", null, () => EncodingLimits.SetMaxIntsetEntries, v => EncodingLimits.SetMaxIntsetEntries = v, memory: false),
        .. Encoding("set-max-listpack-entries", null, () => EncodingLimits.SetMaxListpackEntries, v => EncodingLimits.SetMaxListpackEntries = v, memory: false),
        .. Encoding("set-max-listpack-value", null, () => EncodingLimits.SetMaxListpackValue, v => EncodingLimits.SetMaxListpackValue = v, memory: true),
        .. Encoding("zset-max-listpack-entries", "zset-max-ziplist-entries", () => EncodingLimits.ZSetMaxListpackEntries, v => EncodingLimits.ZSetMaxListpackEntries = v, memory: false),
        .. Encoding("zset-max-listpack-value", "zset-max-ziplist-value", () => EncodingLimits.ZSetMaxListpackValue, v => EncodingLimits.ZSetMaxListpackValue = v, memory: true),
        .. ListSize("list-max-listpack-size"),
        .. ListSize("list-max-ziplist-size"),
        // this server's own parameters (not in Redis)
        new() { Name = "compaction-interval", Get = s => Int(s.Settings.CompactionIntervalSeconds) },
        new() { Name = "read-queue-depth", Get = s => Int(s.Settings.ReadQueueDepth) },
        new() { Name = "disk-read-engine", Get = s => s.Settings.DiskReadMode switch { Garnet.storage.Devices.DiskReadMode.IoUring => "io_uring", Garnet.storage.Devices.DiskReadMode.Threads => "threads", _ => "auto" } },
        new() { Name = "min-free-disk", Get = s => s.Settings.MinFreeDisk },
        new() { Name = "ignore-unreadable-data", Get = s => YesNo(s.Settings.IgnoreUnreadableData) },
        new() { Name = "metrics-port", Get = s => Int(s.MetricsPort) },
        // slow log, latency monitor, latency tracking, Unix socket (ObservabilityParameters)
        .. ObservabilityParameters.All,
    ];

    /// <summary>A size limit of a compact encoding (0 .. int.MaxValue here; Redis allows up to LONG_MAX, which no collection
    /// reaches), under its name and, when it has one, its ziplist-era alias.</summary>
    private static ConfigParameter[] Encoding(string name, string? alias, Func<int> get, Action<int> set, bool memory)
    {
        Func<RespServer, string, (Action?, string?)> prepare = memory
            ? (_, v) => MemoryValue(v, 0, int.MaxValue, n => set((int)n))
            : (_, v) => IntegerValue(v, 0, int.MaxValue, n => set((int)n));
        var main = new ConfigParameter { Name = name, Get = _ => Int(get()), Prepare = prepare };
        return alias is null ? [main] : [main, new ConfigParameter { Name = alias, Get = _ => Int(get()), Prepare = prepare }];
    }

    private static ConfigParameter[] ListSize(string name) =>
    [
        new ConfigParameter
        {
            Name = name, Get = _ => Int(EncodingLimits.ListMaxListpackSize),
            Prepare = (_, v) => IntegerValue(v, int.MinValue, int.MaxValue, n => EncodingLimits.ListMaxListpackSize = (int)n),
        },
    ];

    public static readonly string[] LogLevels = ["debug", "verbose", "notice", "warning", "nothing"];

    public static string FsyncName(AofFsync p) => p switch { AofFsync.Always => "always", AofFsync.No => "no", _ => "everysec" };

    public static ConfigParameter? Find(string name) =>
        All.FirstOrDefault(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase));

    private static (Action?, string?) Bool(string v, Action<bool> set) => v.ToLowerInvariant() switch
    {
        "yes" => (() => set(true), null),
        "no" => (() => set(false), null),
        _ => (null, "argument must be 'yes' or 'no'"),
    };

    private static (Action?, string?) MemoryValue(string v, long min, long max, Action<long> set)
    {
        if (!MemorySize.TryParse(v, out long n)) return (null, "argument must be a memory value");
        if (n < min || n > max) return (null, $"argument must be between {min} and {max} inclusive");
        return (() => set(n), null);
    }

    private static (Action?, string?) IntegerValue(string v, long min, long max, Action<long> set)
    {
        if (!RespRequestParser.TryParseLong(System.Text.Encoding.UTF8.GetBytes(v), out long n))
            return (null, "argument couldn't be parsed into an integer");
        if (n < min || n > max) return (null, $"argument must be between {min} and {max} inclusive");
        return (() => set(n), null);
    }

    /// <summary>One class of client-output-buffer-limit: its name (normal, replica, pubsub), hard and soft limits in bytes
    /// (0 = none) and soft seconds.</summary>
    public readonly record struct OutputBufferClass(string Class, long Hard, long Soft, int Seconds);

    /// <summary>Parses Redis's "class hard soft seconds [class hard soft seconds ...]" (classes normal, replica/slave,
    /// pubsub), with Redis's errors; every group is checked before any is applied.</summary>
    public static bool TryParseOutputBufferLimit(string v, out List<OutputBufferClass> classes, out string? error)
    {
        classes = new List<OutputBufferClass>();
        error = null;
        var parts = v.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length == 0 || parts.Length % 4 != 0) { error = "Wrong number of arguments in buffer limit configuration."; return false; }
        for (int i = 0; i < parts.Length; i += 4)
        {
            var cls = parts[i].ToLowerInvariant();
            if (cls is not ("normal" or "replica" or "slave" or "pubsub")) { error = "Invalid client class specified in buffer limit configuration."; return false; }
            if (!MemorySize.TryParse(parts[i + 1], out long h) || !MemorySize.TryParse(parts[i + 2], out long so) || h < 0 || so < 0
                || !int.TryParse(parts[i + 3], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int se) || se < 0)
            {
                error = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
                return false;
            }
            classes.Add(new OutputBufferClass(cls == "slave" ? "replica" : cls, h, so, se));
        }
        return true;
    }

    public static void ApplyOutputBufferLimit(ServerSettings settings, IEnumerable<OutputBufferClass> classes)
    {
        foreach (var c in classes)
        {
            switch (c.Class)
            {
                case "normal":
                    settings.OutputBufferHardLimit = c.Hard;
                    settings.NormalOutputBufferSoft = (c.Soft, c.Seconds);
                    break;
                case "replica":
                    settings.ReplicaOutputBufferLimit = (c.Hard, c.Soft, c.Seconds);
                    break;
                case "pubsub":
                    var push = settings.Limits.Push;
                    push.Hard = c.Hard;
                    push.Soft = c.Soft;
                    push.SoftSeconds = c.Seconds;
                    break;
            }
        }
    }

    /// <summary>CONFIG GET's form, the replica class named slave as Redis 7.2 names it.</summary>
    public static string FormatOutputBufferLimit(ServerSettings s)
    {
        var push = s.Limits.Push;
        var r = s.ReplicaOutputBufferLimit;
        return FormattableString.Invariant(
            $"normal {s.OutputBufferHardLimit} {s.NormalOutputBufferSoft.Soft} {s.NormalOutputBufferSoft.Seconds} slave {r.Hard} {r.Soft} {r.Seconds} pubsub {push.Hard} {push.Soft} {push.SoftSeconds}");
    }
}
