// ServerSettings: the server's configuration at run time. The host fills it from options at start;
// CONFIG SET changes the mutable ones (ConfigParameters lists which). Reads are plain field reads:
// a change is seen by other connections at their next request.
using Garnet.common.Resp;

namespace Garnet.server;

public sealed class ServerSettings
{
    public string[] Bind { get; set; } = ["127.0.0.1"];
    public int Port { get; set; } = 6379;
    /// <summary>Memory budget of the store in bytes (--memory / maxmemory).</summary>
    public long MemoryBytes { get; set; } = 1024L * 1024 * 1024;
    /// <summary>Data directory for log segments, checkpoints and AOF.</summary>
    public string Dir { get; set; } = "./data";
    /// <summary>Password of the default user; null or empty means none.</summary>
    public volatile string? RequirePass;
    public int Databases { get; set; } = 16;
    /// <summary>When a checkpoint is due (Redis's save rules); empty turns periodic checkpoints off.</summary>
    public Persistence.SaveRule[] SaveRules { get; set; } = Persistence.SaveRules.Default;
    /// <summary>Start even when --dir holds checkpoint files that cannot be read (they are renamed *.unreadable).</summary>
    public bool IgnoreUnreadableData { get; set; }
    /// <summary>Log every write to the append-only file, replayed at start after the checkpoint (CONFIG SET appendonly
    /// changes it at run time, through Persistence.AofSwitch).</summary>
    public bool Aof { get; set; }
    public Persistence.AofFsync AofFsync { get; set; } = Persistence.AofFsync.EverySec;
    /// <summary>protected-mode: without a password, serve only clients from the loopback interface (Clients/ProtectedMode).</summary>
    public volatile bool ProtectedMode = true;
    /// <summary>The config file the options were read from (--config), or null; INFO's config_file.</summary>
    public string? ConfigFile { get; set; }
    /// <summary>Seconds between log compactions (0: only on COMPACT).</summary>
    public int CompactionIntervalSeconds { get; set; } = 60;
    /// <summary>Disk reads in flight at most (KVStoreSettings.ReadQueueDepth).</summary>
    public int ReadQueueDepth { get; set; } = 64;

    /// <summary>Which code serves client sockets (docs/networking.md).</summary>
    public NetworkEngine NetworkEngine { get; set; } = OperatingSystem.IsLinux() ? NetworkEngine.Epoll : NetworkEngine.Sockets;

    /// <summary>Loop threads of the epoll engine (NetworkEngine.Epoll); at least 1.</summary>
    public int NetworkThreads { get; set; } = DefaultNetworkThreads;

    /// <summary>Half the processors, at least 1: the other half for the clients, the disk reader, flushes and the GC.</summary>
    public static int DefaultNetworkThreads => Math.Max(1, Environment.ProcessorCount / 2);

    /// <summary>How disk reads are done (KVStoreSettings.DiskReadMode).</summary>
    public Garnet.storage.Devices.DiskReadMode DiskReadMode { get; set; } = Garnet.storage.Devices.DiskReadMode.Auto;
    /// <summary>min-free-disk: writes are refused while the data directory's file system has less free space than this
    /// many bytes or this percent of its size (Storage/DiskSpaceGuard); both 0: off. The text is what was configured.</summary>
    public long MinFreeDiskBytes { get; set; }
    public double MinFreeDiskPercent { get; set; } = 1;
    public string MinFreeDisk { get; set; } = "1%";
    /// <summary>log2 of the size of a log segment file (the unit in which disk space is given back); not a user option.</summary>
    public int SegmentBits { get; set; } = 26;
    /// <summary>Redis log level: debug, verbose, notice, warning, nothing.</summary>
    public volatile string LogLevel = "notice";
    public RespLimits Limits { get; } = new();
    /// <summary>maxclients: connections beyond this are refused with an error.</summary>
    public volatile int MaxClients = 10000;
    /// <summary>auth-max-failures: failed AUTH / HELLO AUTH one connection may make; the last one's error is sent, then the
    /// connection is closed (0 = no bound).</summary>
    public volatile int AuthMaxFailures = 10;
    /// <summary>timeout: close a client idle this many seconds (0 = never).</summary>
    public volatile int IdleTimeoutSeconds;
    /// <summary>client-output-buffer-limit for normal clients, hard limit in bytes (0 = none); lives in Limits so connections read it live.</summary>
    public long OutputBufferHardLimit { get => Limits.OutputBufferHardLimit; set => Limits.OutputBufferHardLimit = value; }
    /// <summary>client-output-buffer-limit's parts that are kept only to be shown by CONFIG GET (nothing enforces them): the
    /// normal class's soft limit and seconds, and the replica class (there are no replicas).</summary>
    public (long Soft, int Seconds) NormalOutputBufferSoft { get; set; }
    public (long Hard, long Soft, int Seconds) ReplicaOutputBufferLimit { get; set; } = (256L * 1024 * 1024, 64L * 1024 * 1024, 60);
    /// <summary>notify-keyspace-events: the PubSub.NotifyClass flags of the keyspace notifications to send (0 = none, the
    /// default). Read once per possible event (RespServerSession.Notify), so a change applies to the next command.</summary>
    public volatile int NotifyKeyspaceEvents;
    /// <summary>busy-reply-threshold (lua-time-limit) at start, ms.</summary>
    public int BusyReplyThresholdMs { get; set; } = 5000;
    /// <summary>lua-memory-limit at start: the cap of each Lua heap (EVAL, FUNCTION), bytes; 0 = none.</summary>
    public long LuaMemoryLimit { get; set; } = 256L * 1024 * 1024;
    /// <summary>Called when the log level changes (the host maps it onto its logging filter).</summary>
    public Action<string>? LogLevelChanged { get; set; }

    /// <summary>slowlog-log-slower-than at start, µs (negative: off, 0: every command).</summary>
    public int SlowlogLogSlowerThan { get; set; } = 10_000;
    /// <summary>slowlog-max-len at start.</summary>
    public int SlowlogMaxLen { get; set; } = 128;
    /// <summary>latency-monitor-threshold at start, ms (0: off).</summary>
    public int LatencyMonitorThreshold { get; set; }
    /// <summary>latency-tracking at start: per-command latency histograms (INFO latencystats, LATENCY HISTOGRAM).</summary>
    public bool LatencyTracking { get; set; } = true;
    /// <summary>enable-debug-command (immutable): who may run DEBUG. Default local (Redis's is no; see docs/admin.md).</summary>
    public Config.ProtectedAction EnableDebugCommand { get; set; } = Config.ProtectedAction.Local;
    /// <summary>latency-tracking-info-percentiles at start.</summary>
    public double[] LatencyTrackingInfoPercentiles { get; set; } = [50, 99, 99.9];
    /// <summary>unixsocket: path of a Unix domain socket to listen on as well (null: none).</summary>
    public string? UnixSocket { get; set; }
    /// <summary>unixsocketperm: the socket file's permissions (0: as the umask leaves them).</summary>
    public int UnixSocketPerm { get; set; }
    /// <summary>--metrics-port: port of the Prometheus /metrics endpoint on the bind addresses (0: off).</summary>
    public int MetricsPort { get; set; }

    public bool PasswordRequired => !string.IsNullOrEmpty(RequirePass);
}

/// <summary>Which code serves client sockets.</summary>
public enum NetworkEngine
{
    /// <summary>.NET's socket engine: a receive loop per connection, completions on its epoll threads.</summary>
    Sockets,
    /// <summary>Our own epoll loops (Linux): every ready request of a round runs, then all replies are written.</summary>
    Epoll,
}

