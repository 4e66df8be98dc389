// SettingsBuilder: turns options into validated ServerSettings. Every failure is one line naming the option
// and what is allowed (OptionsException); nothing starts with an invalid value.
using System.Net;
using Garnet.common.Util;
using Garnet.server;
using Garnet.server.Config;

namespace Garnet.Options;

public static class SettingsBuilder
{
    /// <summary>What each integer option allows, in the words of its error message (also used for values that are not integers).</summary>
    public static readonly IReadOnlyDictionary<string, string> AllowedIntegers = new Dictionary<string, string>
    {
        ["port"] = "an integer from 0 to 65535",
        ["databases"] = "an integer from 1 to 1024",
        ["maxclients"] = "an integer of at least 1",
        ["timeout"] = "0 (never) or a number of seconds",
        ["auth-max-failures"] = "0 (no bound) or a number of failed attempts per connection",
        ["compaction-interval"] = "0 (only on COMPACT) or a number of seconds up to 2592000 (30 days)",
        ["read-queue-depth"] = "an integer from 1 to 1024",
        ["network-threads"] = "an integer from 1 to 64",
        ["metrics-port"] = "0 (off) or a port from 1 to 65535, not the RESP port",
        ["slowlog-log-slower-than"] = "-1 (off) or a number of microseconds up to 2147483647",
        ["slowlog-max-len"] = "an integer from 0 to 2147483647",
        ["latency-monitor-threshold"] = "0 (off) or a number of milliseconds up to 2147483647",
    };

    public static ServerSettings Build(GarnetServerOptions o)
    {
        var s = new ServerSettings();

        // Collection encoding limits (from a config file): validated as CONFIG SET validates them, then applied.
        foreach (var (name, value) in o.ObjectEncodings)
        {
            var (apply, error) = Garnet.server.Config.ConfigParameters.Find(name)!.Prepare!(null!, value);
            if (error is not null) throw new OptionsException($"Invalid value for {name}: '{value}' ({error}).");
            apply!();
        }

        var bind = (o.Bind ?? "127.0.0.1").Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (bind.Length == 0) throw Invalid("bind", o.Bind, "one or more IP addresses separated by spaces");
        foreach (var b in bind)
            if (b is not ("*" or "::*" or "-::*") && !IPAddress.TryParse(b.TrimStart('-'), out _))
                throw Invalid("bind", b, "IP addresses such as 127.0.0.1, ::1, 0.0.0.0 or *");
        s.Bind = bind;

        int port = o.Port ?? 6379;
        if (port < 0 || port > 65535) throw Invalid("port", o.Port, AllowedIntegers["port"]);
        s.Port = port;

        s.MemoryBytes = Memory("memory", o.Memory ?? "1gb", 1024 * 1024, long.MaxValue);

        string dir = o.Dir ?? "./data";
        if (string.IsNullOrWhiteSpace(dir) || dir.IndexOfAny(Path.GetInvalidPathChars()) >= 0)
            throw Invalid("dir", o.Dir, "a directory path");
        s.Dir = dir;

        s.RequirePass = string.IsNullOrEmpty(o.RequirePass) ? null : o.RequirePass;

        int dbs = o.Databases ?? 16;
        if (dbs < 1 || dbs > 1024) throw Invalid("databases", o.Databases, AllowedIntegers["databases"]);
        s.Databases = dbs;

        string level = (o.LogLevel ?? "notice").ToLowerInvariant();
        if (!ConfigParameters.LogLevels.Contains(level)) throw Invalid("loglevel", o.LogLevel, string.Join(", ", ConfigParameters.LogLevels));
        s.LogLevel = level;

        int maxClients = o.MaxClients ?? 10000;
        if (maxClients < 1) throw Invalid("maxclients", o.MaxClients, AllowedIntegers["maxclients"]);
        s.MaxClients = maxClients;

        int timeout = o.Timeout ?? 0;
        if (timeout < 0) throw Invalid("timeout", o.Timeout, AllowedIntegers["timeout"]);
        s.IdleTimeoutSeconds = timeout;

        int authMaxFailures = o.AuthMaxFailures ?? 10;
        if (authMaxFailures < 0) throw Invalid("auth-max-failures", o.AuthMaxFailures, AllowedIntegers["auth-max-failures"]);
        s.AuthMaxFailures = authMaxFailures;

        s.Limits.ProtoMaxBulkLen = Memory("proto-max-bulk-len", o.ProtoMaxBulkLen ?? "512mb", 1024 * 1024, common.Resp.RespLimits.AbsoluteMaxBuffer - 2);
        s.Limits.QueryBufferLimit = Memory("client-query-buffer-limit", o.ClientQueryBufferLimit ?? "1gb", 1024 * 1024, common.Resp.RespLimits.AbsoluteMaxBuffer - 1);
        string save = o.Save ?? Garnet.server.Persistence.SaveRules.Format(Garnet.server.Persistence.SaveRules.Default);
        s.SaveRules = Garnet.server.Persistence.SaveRules.Parse(save.Trim() is "" ? "\"\"" : save)
            ?? throw Invalid("save", o.Save, "pairs of <seconds> <changes> (positive seconds, changes >= 0), e.g. \"3600 1 300 100\", or \"\" for none");
        s.IgnoreUnreadableData = o.IgnoreUnreadableData;
        s.Aof = o.Aof;
        int compaction = o.CompactionInterval ?? 60;
        if (compaction < 0 || compaction > 2_592_000) throw Invalid("compaction-interval", o.CompactionInterval, AllowedIntegers["compaction-interval"]);
        s.CompactionIntervalSeconds = compaction;
        int depth = o.ReadQueueDepth ?? 64;
        if (depth < 1 || depth > 1024) throw Invalid("read-queue-depth", o.ReadQueueDepth, AllowedIntegers["read-queue-depth"]);
        s.ReadQueueDepth = depth;
        s.DiskReadMode = (o.DiskReadEngine ?? "auto").ToLowerInvariant() switch
        {
            "auto" => Garnet.storage.Devices.DiskReadMode.Auto,
            "io_uring" => Garnet.storage.Devices.DiskReadMode.IoUring,
            "threads" => Garnet.storage.Devices.DiskReadMode.Threads,
            _ => throw Invalid("disk-read-engine", o.DiskReadEngine, "auto, io_uring or threads"),
        };
        s.NetworkEngine = (o.NetworkEngine ?? (Garnet.common.Networking.Epoll.EpollNetwork.IsSupported ? "epoll" : "sockets")).ToLowerInvariant() switch
        {
            "sockets" => Garnet.server.NetworkEngine.Sockets,
            "epoll" when Garnet.common.Networking.Epoll.EpollNetwork.IsSupported => Garnet.server.NetworkEngine.Epoll,
            "epoll" => throw new OptionsException("Invalid value for --network-engine: 'epoll' needs Linux. Allowed here: sockets."),
            _ => throw Invalid("network-engine", o.NetworkEngine, "epoll or sockets"),
        };
        int networkThreads = o.NetworkThreads ?? Garnet.server.ServerSettings.DefaultNetworkThreads;
        if (networkThreads < 1 || networkThreads > 64) throw Invalid("network-threads", o.NetworkThreads, AllowedIntegers["network-threads"]);
        s.NetworkThreads = networkThreads;
        string minFree = (o.MinFreeDisk ?? "1%").Trim();
        const string MinFreeAllowed = "0 (off), a size such as 256mb, or a percentage of the file system from 0% to 50% such as 1%";
        if (minFree.EndsWith('%'))
        {
            if (!double.TryParse(minFree[..^1], System.Globalization.NumberStyles.AllowDecimalPoint, System.Globalization.CultureInfo.InvariantCulture, out double pct)
                || !(pct >= 0 && pct <= 50))
                throw Invalid("min-free-disk", o.MinFreeDisk, MinFreeAllowed);
            s.MinFreeDiskPercent = pct;
            s.MinFreeDiskBytes = 0;
        }
        else
        {
            if (!MemorySize.TryParse(minFree, out long bytes) || bytes < 0) throw Invalid("min-free-disk", o.MinFreeDisk, MinFreeAllowed);
            s.MinFreeDiskBytes = bytes;
            s.MinFreeDiskPercent = 0;
        }
        s.MinFreeDisk = minFree;
        s.AofFsync = (o.AofFsync ?? "everysec").ToLowerInvariant() switch
        {
            "always" => Garnet.server.Persistence.AofFsync.Always,
            "everysec" => Garnet.server.Persistence.AofFsync.EverySec,
            "no" => Garnet.server.Persistence.AofFsync.No,
            _ => throw Invalid("aof-fsync", o.AofFsync, "always, everysec or no"),
        };
        s.ProtectedMode = (o.ProtectedMode ?? "yes").ToLowerInvariant() switch
        {
            "yes" or "true" or "1" => true,
            "no" or "false" or "0" => false,
            _ => throw Invalid("protected-mode", o.ProtectedMode, "yes or no"),
        };
        if (!Garnet.server.PubSub.KeyspaceEvents.TryParse(o.NotifyKeyspaceEvents ?? "", out var notify))
            throw Invalid("notify-keyspace-events", o.NotifyKeyspaceEvents, "the class letters K E g $ l s h z x e t m d n A, e.g. \"KEA\" or \"Ex\", or \"\" for none");
        s.NotifyKeyspaceEvents = (int)notify;
        s.ConfigFile = o.ConfigFile is null ? null : Path.GetFullPath(o.ConfigFile);
        // client-output-buffer-limit: the config file's classes, then the option (a size = the normal hard limit, or Redis's form).
        foreach (var line in o.OutputBufferLimitsFromFile)
        {
            if (!ConfigParameters.TryParseOutputBufferLimit(line, out var classes, out var error))
                throw new OptionsException($"Invalid value for client-output-buffer-limit: '{line}' ({error})");
            ConfigParameters.ApplyOutputBufferLimit(s, classes);
        }
        string obl = (o.ClientOutputBufferLimit ?? "").Trim();
        if (obl.Contains(' '))
        {
            if (!ConfigParameters.TryParseOutputBufferLimit(obl, out var classes, out var error))
                throw Invalid("client-output-buffer-limit", o.ClientOutputBufferLimit, $"a size, or groups of <class> <hard> <soft> <seconds> with classes normal, replica, pubsub ({error})");
            ConfigParameters.ApplyOutputBufferLimit(s, classes);
        }
        else if (obl.Length > 0) s.OutputBufferHardLimit = Memory("client-output-buffer-limit", obl, 0, long.MaxValue);
        Observability(o, s);
        return s;
    }

    /// <summary>Unix socket, metrics endpoint, slow log and latency options (docs/observability.md).</summary>
    private static void Observability(GarnetServerOptions o, ServerSettings s)
    {
        if (!string.IsNullOrEmpty(o.UnixSocket))
        {
            string path = o.UnixSocket;
            // sun_path holds 108 bytes with the terminating NUL on Linux (104 on macOS).
            if (System.Text.Encoding.UTF8.GetByteCount(path) > 107) throw Invalid("unixsocket", path, "a path of at most 107 bytes");
            string full = Path.GetFullPath(path);
            string dir = Path.GetDirectoryName(full) ?? "/";
            if (Directory.Exists(full)) throw Invalid("unixsocket", path, "a file path (this is a directory)");
            if (!Directory.Exists(dir)) throw Invalid("unixsocket", path, $"a path in an existing directory ({dir} does not exist)");
            if (!DirectoryWritable(dir)) throw Invalid("unixsocket", path, $"a path in a directory this user can write ({dir} is not writable)");
            s.UnixSocket = path;
        }
        string perm = (o.UnixSocketPerm ?? "0").Trim();
        if (perm.Length == 0 || perm.Length > 4 || perm.Any(c => c < '0' || c > '7')) throw Invalid("unixsocketperm", o.UnixSocketPerm, "an octal file mode from 0 to 777, e.g. 700 or 770");
        int mode = Convert.ToInt32(perm, 8);
        if (mode > 0x1FF) throw Invalid("unixsocketperm", o.UnixSocketPerm, "an octal file mode from 0 to 777, e.g. 700 or 770");
        s.UnixSocketPerm = mode;
        int metrics = o.MetricsPort ?? 0;
        if (metrics < 0 || metrics > 65535 || (metrics != 0 && metrics == s.Port)) throw Invalid("metrics-port", o.MetricsPort, AllowedIntegers["metrics-port"]);
        s.MetricsPort = metrics;
        long slower = o.SlowlogLogSlowerThan ?? 10_000;
        if (slower < -1 || slower > int.MaxValue) throw Invalid("slowlog-log-slower-than", o.SlowlogLogSlowerThan, AllowedIntegers["slowlog-log-slower-than"]);
        s.SlowlogLogSlowerThan = (int)slower;
        long maxLen = o.SlowlogMaxLen ?? 128;
        if (maxLen < 0 || maxLen > int.MaxValue) throw Invalid("slowlog-max-len", o.SlowlogMaxLen, AllowedIntegers["slowlog-max-len"]);
        s.SlowlogMaxLen = (int)maxLen;
        long latency = o.LatencyMonitorThreshold ?? 0;
        if (latency < 0 || latency > int.MaxValue) throw Invalid("latency-monitor-threshold", o.LatencyMonitorThreshold, AllowedIntegers["latency-monitor-threshold"]);
        s.LatencyMonitorThreshold = (int)latency;
        s.LatencyTracking = (o.LatencyTracking ?? "yes").ToLowerInvariant() switch
        {
            "yes" or "true" or "1" => true,
            "no" or "false" or "0" => false,
            _ => throw Invalid("latency-tracking", o.LatencyTracking, "yes or no"),
        };
        if (!ProtectedActions.TryParse(o.EnableDebugCommand ?? "local", out var debugCommand))
            throw Invalid("enable-debug-command", o.EnableDebugCommand, "no, yes or local");
        s.EnableDebugCommand = debugCommand;
        if (o.LatencyTrackingInfoPercentiles is { } p)
        {
            if (!ObservabilityParameters.TryParsePercentiles(p, out var percentiles, out var error))
                throw Invalid("latency-tracking-info-percentiles", p, $"numbers from 0 to 100 separated by spaces, e.g. \"50 99 99.9\" ({error})");
            s.LatencyTrackingInfoPercentiles = percentiles;
        }
    }

    private static bool DirectoryWritable(string dir)
    {
        if (OperatingSystem.IsWindows()) return true;
        // access(2) W_OK|X_OK: what bind(2) needs to create the socket file.
        return Access(dir, 2 | 1) == 0;
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "access", SetLastError = true)]
    private static extern int Access([System.Runtime.InteropServices.MarshalAs(System.Runtime.InteropServices.UnmanagedType.LPUTF8Str)] string path, int mode);

    private static long Memory(string name, string value, long min, long max)
    {
        if (!MemorySize.TryParse(value, out long n) || n < min || n > max)
            throw Invalid(name, value, $"a size from {MemorySize.Format(min)} to {(max == long.MaxValue ? "any" : MemorySize.Format(max))}, e.g. 512mb or 4gb");
        return n;
    }

    private static OptionsException Invalid(string name, object? value, string allowed) =>
        new($"Invalid value for --{name}: '{value}'. Allowed: {allowed}.");
}
