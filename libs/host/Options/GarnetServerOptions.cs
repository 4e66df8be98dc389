// GarnetServerOptions: every option a user can set, on the command line (CommandLineParser) or in a config
// file (--config, JSON or redis.conf style). Properties are nullable so that a command-line value can be
// told from an unset one: command line beats config file beats default (the defaults are applied in SettingsBuilder).
using CommandLine;

namespace Garnet.Options;

public sealed class GarnetServerOptions
{
    [Option("bind", HelpText = "Addresses to listen on, separated by spaces (e.g. \"127.0.0.1 ::1\"; * for all IPv4). Default: 127.0.0.1")]
    public string? Bind { get; set; }

    [Option("port", HelpText = "TCP port, 0-65535 (0 picks a free port). Default: 6379")]
    public int? Port { get; set; }

    [Option("memory", HelpText = "Memory budget of the store: bytes or a size such as 512mb, 4gb (k/m/g = 1000s, kb/mb/gb = 1024s, as in redis.conf). Default: 1gb")]
    public string? Memory { get; set; }

    [Option("dir", HelpText = "Data directory for log segments, checkpoints and the AOF. Default: ./data")]
    public string? Dir { get; set; }

    [Option("requirepass", HelpText = "Password of the default user; clients must AUTH before other commands. Default: none")]
    public string? RequirePass { get; set; }

    [Option("databases", HelpText = "Number of databases (SELECT 0..N-1), 1-1024. Default: 16")]
    public int? Databases { get; set; }

    [Option("loglevel", HelpText = "Log level: debug, verbose, notice, warning or nothing. Default: notice")]
    public string? LogLevel { get; set; }

    [Option("maxclients", HelpText = "Most clients connected at once; more are refused. Default: 10000")]
    public int? MaxClients { get; set; }

    [Option("auth-max-failures", HelpText = "Failed AUTH / HELLO AUTH one connection may make; the last one's error is sent, then the connection is closed (0 = no bound). Default: 10")]
    public int? AuthMaxFailures { get; set; }

    [Option("timeout", HelpText = "Close a client after it has been idle this many seconds (0 = never). Default: 0")]
    public int? Timeout { get; set; }

    [Option("proto-max-bulk-len", HelpText = "Largest bulk string in a request (at least 1mb). Default: 512mb")]
    public string? ProtoMaxBulkLen { get; set; }

    [Option("client-query-buffer-limit", HelpText = "Most unprocessed request bytes per client (at least 1mb). Default: 1gb")]
    public string? ClientQueryBufferLimit { get; set; }

    [Option("client-output-buffer-limit", HelpText = "A size: the largest pending reply per normal client before it is dropped (0 = no limit; replies are sent as they are produced). Or Redis's form \"<class> <hard> <soft> <seconds> ...\" with classes normal, replica, pubsub: the pubsub class bounds pub/sub messages not yet sent to a subscriber (past <hard>, or past <soft> for <seconds>, it is disconnected). Default: \"normal 0 0 0 pubsub 32mb 8mb 60\"")]
    public string? ClientOutputBufferLimit { get; set; }

    [Option("notify-keyspace-events", HelpText = "Keyspace notifications to publish, as Redis's classes: K (__keyspace@<db>__ channels), E (__keyevent@<db>__ channels) and the event classes g $ l s h z x e t d n m, A = g$lshzxetd. \"\" = none. Default: \"\"")]
    public string? NotifyKeyspaceEvents { get; set; }

    [Option("save", HelpText = "Checkpoint rules as in redis.conf: pairs of <seconds> <changes>; a checkpoint is taken when at least <changes> writes happened and more than <seconds> passed since the last one. \"\" turns periodic checkpoints (and the one at shutdown) off. Default: \"3600 1 300 100 60 10000\"")]
    public string? Save { get; set; }

    [Option("ignore-unreadable-data", HelpText = "Start even when --dir holds checkpoint files that cannot be read (corrupt or truncated); they are renamed to *.unreadable. Without it the server refuses to start and names the file. Default: off")]
    public bool IgnoreUnreadableData { get; set; }

    [Option("aof", HelpText = "Log every write to an append-only file in --dir (appendonly.<n>.aof) and replay it at start after the checkpoint. Default: off")]
    public bool Aof { get; set; }

    [Option("aof-fsync", HelpText = "When AOF writes are made durable: always (a reply waits until the write is on disk), everysec (a crash loses about the last second) or no (the OS decides). Default: everysec")]
    public string? AofFsync { get; set; }

    [Option("compaction-interval", HelpText = "Seconds between log compactions, which copy live records out of the oldest log segments and delete segment files that hold nothing live (0: only on the COMPACT command). Default: 60")]
    public int? CompactionInterval { get; set; }

    [Option("read-queue-depth", HelpText = "Disk reads in flight at most per reader (keys whose records are on disk): each epoll network loop's io_uring, the shared io_uring, or the reader threads of --disk-read-engine threads (started when needed). Default: 64")]
    public int? ReadQueueDepth { get; set; }

    [Option("disk-read-engine", HelpText = "How reads of records on disk are done: io_uring (one ring thread submits them in batches, and each epoll network loop has a ring of its own for the reads it starts; Linux 5.6+), threads (a blocking read per reader thread, up to --read-queue-depth), or auto (io_uring where the kernel allows it, else threads). Default: auto")]
    public string? DiskReadEngine { get; set; }
    [Option("network-engine", HelpText = "What serves client sockets: epoll (our own event loops, Linux: every ready request of a round runs, then all replies are written, as Redis does) or sockets (.NET's socket engine: each connection's loop sends its replies as soon as they are written). Default: epoll on Linux, else sockets")]
    public string? NetworkEngine { get; set; }

    [Option("network-threads", HelpText = "Event-loop threads of --network-engine epoll; each serves its share of the connections (one loop runs at most one core's worth of requests; more loops raise the peak rate of pipelined clients, and share the cores with the clients on the same machine). Default: half the processors, at least 1")]
    public int? NetworkThreads { get; set; }

    [Option("min-free-disk", HelpText = "Refuse writes (MISCONF) while the data directory's file system has less free space than this: a size such as 256mb, or a percentage of the file system such as 1%; 0 = off. Reads go on; writes are accepted again once space returns. Default: 1%")]
    public string? MinFreeDisk { get; set; }

    [Option("protected-mode", HelpText = "yes or no. While yes and no password is set (--requirepass), clients that do not connect from the loopback interface get a DENIED error and are closed, as in Redis. Default: yes")]
    public string? ProtectedMode { get; set; }

    [Option("unixsocket", HelpText = "Also accept clients on this Unix domain socket path (as redis.conf's unixsocket); a stale socket file is replaced, and the file is deleted at shutdown. With --port 0, only the socket is served. Default: none")]
    public string? UnixSocket { get; set; }

    [Option("unixsocketperm", HelpText = "Permissions of the Unix socket file, octal as in redis.conf (e.g. 700, 770); 0 leaves them as the umask makes them. Default: 0")]
    public string? UnixSocketPerm { get; set; }

    [Option("metrics-port", HelpText = "Serve Prometheus metrics at http://<bind>:<port>/metrics (0 = off). Default: 0")]
    public int? MetricsPort { get; set; }

    [Option("slowlog-log-slower-than", HelpText = "Log commands that run at least this many microseconds in the slow log (SLOWLOG GET); -1 = off, 0 = every command. Default: 10000")]
    public long? SlowlogLogSlowerThan { get; set; }

    [Option("slowlog-max-len", HelpText = "Entries the slow log keeps. Default: 128")]
    public long? SlowlogMaxLen { get; set; }

    [Option("latency-monitor-threshold", HelpText = "Record latency events (LATENCY LATEST) of at least this many milliseconds; 0 = off. Default: 0")]
    public long? LatencyMonitorThreshold { get; set; }

    [Option("latency-tracking", HelpText = "yes or no: keep a latency histogram per command (INFO latencystats, LATENCY HISTOGRAM, Prometheus). Default: yes")]
    public string? LatencyTracking { get; set; }

    [Option("latency-tracking-info-percentiles", HelpText = "Percentiles INFO latencystats shows, separated by spaces, each 0-100. Default: \"50 99 99.9\"")]
    public string? LatencyTrackingInfoPercentiles { get; set; }

    [Option("enable-debug-command", HelpText = "Who may run DEBUG: no (nobody), yes (every client) or local (Unix socket and loopback clients). Default: local")]
    public string? EnableDebugCommand { get; set; }

    [Option("config", HelpText = "Config file: JSON (keys are these option names) or redis.conf style (directives that map onto these options).")]
    public string? ConfigFile { get; set; }

    /// <summary>client-output-buffer-limit lines of a redis.conf file ("<class> <hard> <soft> <seconds>", the last one of each
    /// class), applied before --client-output-buffer-limit. Not a command-line option.</summary>
    public List<string> OutputBufferLimitsFromFile { get; } = new();

    /// <summary>Collection encoding limits from a config file (hash-max-listpack-entries, ...; Redis's names and aliases),
    /// applied at start-up. Not a command-line option.</summary>
    public Dictionary<string, string> ObjectEncodings { get; } = new(StringComparer.OrdinalIgnoreCase);
}
