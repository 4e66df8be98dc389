// RespServer: the running server. Owns the listeners, the command table, the client registry, the
// statistics and the housekeeping timer; builds a session for each accepted connection.
// Invariants:
//  - Start() binds every address or fails as a whole (nothing left listening).
//  - Stop() first stops accepting, then asks every connection to close after its current batch,
//    waits (bounded) for them to finish, and force-closes whatever is still open after the grace period.
using System.Net;
using System.Net.Sockets;
using System.Text;
using Garnet.common.Networking;
using Garnet.server.Clients;
using Garnet.server.Commands;
using Garnet.server.Metrics;
using Garnet.server.Session;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Garnet.server;

public sealed class RespServer : IDisposable
{
    private readonly List<TcpListenerLoop> _listeners = new();
    private UnixSocketListener? _unixListener;
    private MetricsEndpoint? _metrics;
    private readonly ILogger _logger;
    private IDisposable? _housekeeping;
    private int _stopped;

    public RespServer(ServerSettings settings, ILoggerFactory? loggerFactory = null)
    {
        Settings = settings;
        LoggerFactory = loggerFactory ?? NullLoggerFactory.Instance;
        _logger = LoggerFactory.CreateLogger("Garnet.Server");
        Clients = new ClientRegistry();
        Tracking = new Tracking.KeyTracking(this);
        Stats = new ServerStatistics(Clients);
        Commands = CommandTable.Default;
        CommandStats = new CommandStatistics(Commands.AllWithSubcommands.Count) { TrackLatency = settings.LatencyTracking };
        SlowLog = new SlowLog { ThresholdUsec = settings.SlowlogLogSlowerThan, MaxLen = settings.SlowlogMaxLen };
        Latency = new LatencyMonitor { ThresholdMs = settings.LatencyMonitorThreshold };
        LatencyPercentiles = settings.LatencyTrackingInfoPercentiles;
        Scripts = new Scripting.ScriptRunner(settings.LuaMemoryLimit) { BusyThresholdMs = settings.BusyReplyThresholdMs };
        SaveOnStop = settings.SaveRules.Length > 0 || settings.Aof;
        Store = new Storage.StoreHost(settings, LoggerFactory);
        Store.ExpiryListener = new ExpiryEvents(this);
        Checkpoints = new Persistence.Checkpointer(Store, settings.Dir, settings.SaveRules, Stats.WritesTotal, LoggerFactory.CreateLogger("Garnet.Checkpoint"));
        Checkpoints.FunctionCodes = Scripts.LibraryCodes;
        // Function libraries of the checkpoint, before the AOF replay (which may change them).
        foreach (var code in Store.Recovered.Functions ?? [])
            if (!Scripts.LoadLibrary(code, replace: true, out string? error))
                _logger.LogWarning("A function library of the checkpoint was not loaded: {Error}", error);

        var existingAof = Persistence.AofLog.Existing(settings.Dir);
        if (settings.Aof)
        {
            try { Replayed = Persistence.AofReplay.Run(this, settings.Dir, Store.Recovered.AofSequence, settings.IgnoreUnreadableData, _logger); }
            catch
            {
                Checkpoints.Dispose();
                Store.Dispose();
                throw;
            }
            // Never below the sequence the checkpoint names: a recovery must find the writes made from now on.
            long next = Math.Max(existingAof.Select(f => f.sequence).DefaultIfEmpty(0).Max() + 1, Math.Max(1, Store.Recovered.AofSequence));
            Aof = new Persistence.AofLog(settings.Dir, next, settings.AofFsync, LoggerFactory.CreateLogger("Garnet.Aof"));
            Checkpoints.Aof = Aof;
        }
        else if (existingAof.Count > 0)
            _logger.LogWarning("{Dir} holds {Count} append-only files, but --aof is off: they are not replayed", settings.Dir, existingAof.Count);
        CommandStats.Reset(); // as Redis: commands replayed from the AOF are not in commandstats
        // Only now: a checkpoint during the replay would not know the AOF. What was loaded counts as saved, as in Redis.
        Checkpoints.StartSaveRules();
        RunId = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(20)).ToLowerInvariant();
    }

    public ServerSettings Settings { get; }

    /// <summary>EVAL scripts, FUNCTION libraries and the running script (Scripting/).</summary>
    public Scripting.ScriptRunner Scripts { get; }
    public ILoggerFactory LoggerFactory { get; }
    public ClientRegistry Clients { get; }
    public ServerStatistics Stats { get; }

    /// <summary>Per-command calls, time, rejections, failures and latency histograms (INFO commandstats/latencystats).</summary>
    public CommandStatistics CommandStats { get; }

    /// <summary>SLOWLOG: commands slower than slowlog-log-slower-than.</summary>
    public SlowLog SlowLog { get; }

    /// <summary>The figures as Prometheus metrics (--metrics-port serves them; tests and embedders may read them directly).</summary>
    public PrometheusExporter Prometheus => _prometheus ??= new PrometheusExporter(this);
    private PrometheusExporter? _prometheus;

    /// <summary>LATENCY: events slower than latency-monitor-threshold.</summary>
    public LatencyMonitor Latency { get; }

    /// <summary>latency-tracking-info-percentiles: the percentiles INFO latencystats shows.</summary>
    public volatile double[] LatencyPercentiles;

    /// <summary>Clients waiting in blocking commands (BLPOP, ...), per key.</summary>
    public Clients.BlockedClients Blocked { get; } = new();

    /// <summary>Pub/sub subscriptions and message delivery (PUBLISH, keyspace notifications).</summary>
    public PubSub.PubSubRegistry PubSub { get; } = new();

    /// <summary>Clients in MONITOR mode and what they are sent (Clients/MonitorFeed).</summary>
    public Clients.MonitorFeed Monitors { get; } = new();

    /// <summary>CLIENT PAUSE / UNPAUSE (Clients/ClientPause).</summary>
    public Clients.ClientPause Pause { get; } = new();

    /// <summary>"expired" events, and cache invalidations (CLIENT TRACKING), for keys active expiry deletes (no session
    /// behind them).</summary>
    private sealed class ExpiryEvents(RespServer server) : Storage.IExpiryListener
    {
        private bool EventsOn => (server.Settings.NotifyKeyspaceEvents & (int)global::Garnet.server.PubSub.NotifyClass.Expired) != 0;

        public bool ExpiredEventsOn => EventsOn || server.Tracking.Active;

        public void Expired(int db, ReadOnlySpan<byte> key)
        {
            if (EventsOn)
                global::Garnet.server.PubSub.KeyspaceEvents.Publish(server.PubSub, (global::Garnet.server.PubSub.NotifyClass)server.Settings.NotifyKeyspaceEvents, "expired"u8, key, db, null);
            if (server.Tracking.Active) server.Tracking.Invalidate(null, key);
        }
    }

    /// <summary>Keys WATCHed by transactions (MULTI/EXEC).</summary>
    public Transactions.WatchedKeys Watches { get; } = new();

    /// <summary>Client-side caching: who may cache which keys (CLIENT TRACKING).</summary>
    public Tracking.KeyTracking Tracking { get; }
    public CommandTable Commands { get; }
    /// <summary>The key-value store and its databases.</summary>
    public Storage.StoreHost Store { get; }
    /// <summary>Checkpoints: SAVE, BGSAVE, the save rules and the one taken at shutdown.</summary>
    public Persistence.Checkpointer Checkpoints { get; }
    /// <summary>The append-only file (null while the AOF is off). CONFIG SET appendonly swaps it (Persistence.AofSwitch),
    /// with every key lock held: a command sees one value from its key locks to its append.</summary>
    public Persistence.AofLog? Aof
    {
        get => Volatile.Read(ref _aof);
        internal set
        {
            if (value is not null) value.Latency ??= Latency.AddIfNeeded;
            Volatile.Write(ref _aof, value);
        }
    }
    private Persistence.AofLog? _aof;
    /// <summary>What the AOF replay at start did.</summary>
    public Persistence.ReplayResult Replayed { get; }

    /// <summary>Whether Stop takes a checkpoint (after the last connection is gone): by default when save rules are set;
    /// SHUTDOWN SAVE / NOSAVE decide for themselves.</summary>
    public bool SaveOnStop { get; set; }
    public string RunId { get; }
    public IReadOnlyList<IPEndPoint> EndPoints => _listeners.Select(l => l.LocalEndPoint).ToList();

    /// <summary>Raised (once) when a client runs SHUTDOWN; the host stops the server in response.</summary>
    public event Action? ShutdownRequested;
    private int _shutdownRaised;

    internal void RequestShutdown()
    {
        if (Interlocked.Exchange(ref _shutdownRaised, 1) == 0)
        {
            _logger.LogWarning("User requested shutdown...");
            var handler = ShutdownRequested;
            // Thread-pool work: an exception escaping it would end the process.
            ThreadPool.QueueUserWorkItem(_ =>
            {
                try { if (handler is null) Stop(); else handler(); }
                catch (Exception ex) { _logger.LogError(ex, "Stopping after SHUTDOWN failed"); }
            });
        }
    }

    /// <summary>TCP is off when --port is 0 and a Unix socket is set (as Redis); port 0 alone picks a free port.</summary>
    private bool TcpEnabled => Settings.Port != 0 || Settings.UnixSocket is null || _boundPort is not null;

    /// <summary>The Unix socket path clients can connect to, or null.</summary>
    public string? UnixSocketPath => _unixListener?.Path;

    /// <summary>The port of the Prometheus endpoint (0 while it is off).</summary>
    public int MetricsPort => _metrics?.Port ?? 0;

    public void Start()
    {
        if (Settings.NetworkEngine == NetworkEngine.Epoll && _epoll is null)
            _epoll = new Garnet.common.Networking.Epoll.EpollNetwork(Settings.NetworkThreads, _logger, Storage.LoopDiskReads.FactoryFor(Settings));
        try
        {
            foreach (var address in TcpEnabled ? Settings.Bind : [])
            {
                var ip = address switch
                {
                    "*" => IPAddress.Any,
                    "-::*" or "::*" => IPAddress.IPv6Any,
                    _ => IPAddress.Parse(address.TrimStart('-')),
                };
                try
                {
                    _listeners.Add(new TcpListenerLoop(new IPEndPoint(ip, _boundPort ?? Settings.Port), OnAccept, _logger));
                }
                catch (SocketException ex) when (address.StartsWith('-') && ex.SocketErrorCode == SocketError.AddressNotAvailable)
                {
                    // "-addr" marks an optional address, as in redis.conf: skip it when it is not available.
                    _logger.LogWarning("Optional bind address {Address} is not available: {Error}", address, ex.SocketErrorCode);
                }
            }
            if (Settings.UnixSocket is { } path)
                _unixListener = new UnixSocketListener(path, Settings.UnixSocketPerm, socket => OnAccept(socket, unix: true), _logger);
            if (Settings.MetricsPort != 0) _metrics = new MetricsEndpoint(this, Settings.MetricsPort);
        }
        catch
        {
            foreach (var l in _listeners) l.Dispose();
            _listeners.Clear();
            _unixListener?.Dispose();
            _unixListener = null;
            _metrics?.Dispose();
            _metrics = null;
            throw;
        }
        if (_listeners.Count == 0 && _unixListener is null)
            throw new SocketException((int)SocketError.AddressNotAvailable, "none of the bind addresses is available: " + string.Join(' ', Settings.Bind));
        if (_listeners.Count > 0) _boundPort = _listeners[0].LocalEndPoint.Port; // a restart after a failed stop listens where clients were told
        foreach (var l in _listeners)
        {
            l.Start();
            _logger.LogInformation("Ready to accept connections on {EndPoint}", l.LocalEndPoint);
        }
        if (_unixListener is { } unixListener)
        {
            unixListener.Start();
            _logger.LogInformation("Ready to accept connections on unix socket {Path}", unixListener.Path);
        }
        if (_metrics is { } metrics)
        {
            metrics.Start();
            _logger.LogInformation("Serving Prometheus metrics on port {Port} (/metrics)", metrics.Port);
        }
        _housekeeping = Store.Cron.Every("housekeeping", TimeSpan.FromMilliseconds(100), Housekeeping);
    }

    private int? _boundPort;
    private Garnet.common.Networking.Epoll.EpollNetwork? _epoll;
    private long _housekeepingRuns;
    private readonly Garnet.common.Util.IdleDecommit _idleDecommit = new();

    /// <summary>Give the GC's unused committed memory back once the server is quiet after a burst (IdleDecommit). The
    /// server executable sets it; an embedding application decides for its own process (off by default).</summary>
    public bool ReturnIdleGcMemory { get; set; }

    private void Housekeeping()
    {
        try
        {
            Stats.Sample();
            bool everySecond = _housekeepingRuns++ % 10 == 0;
            if (everySecond && ReturnIdleGcMemory)
            {
                var gc = GC.GetGCMemoryInfo();
                if (_idleDecommit.Check(gc.TotalCommittedBytes, gc.HeapSizeBytes, Stats.InstantaneousOpsPerSec, Environment.TickCount64))
                    Garnet.common.Util.MemoryReclaimer.RequestCollection();
            }
            if (everySecond && Settings.IdleTimeoutSeconds > 0)
            {
                long limitMs = Settings.IdleTimeoutSeconds * 1000L;
                long now = Environment.TickCount64;
                foreach (var s in Clients.Snapshot())
                    if (now - s.LastInteractionMs > limitMs) { _logger.LogDebug("Closing idle client {Id}", s.Id); s.Kill(); }
            }
        }
        catch (Exception ex) { _logger.LogError(ex, "Housekeeping failed"); }
    }

    private static readonly byte[] s_maxClientsError = Encoding.ASCII.GetBytes("-ERR max number of clients reached\r\n");

    private void OnAccept(Socket socket) => OnAccept(socket, unix: false);

    private void OnAccept(Socket socket, bool unix)
    {
        if (Volatile.Read(ref _stopped) != 0) { socket.Dispose(); return; }
        // Redis's order: maxclients, then protected mode; a refused client counts as rejected, not as received.
        byte[]? refusal = Clients.Count >= Settings.MaxClients ? s_maxClientsError
            : !unix && !ProtectedMode.Allows(Settings, (socket.RemoteEndPoint as IPEndPoint)?.Address) ? ProtectedMode.DeniedReply
            : null;
        if (refusal is not null)
        {
            Stats.ConnectionRejected();
            try { socket.Send(refusal); } catch { }
            socket.Dispose();
            return;
        }
        Stats.ConnectionReceived();
        string? unixPath = unix ? Settings.UnixSocket : null;
        if (_epoll is { } epoll)
        {
            var polled = epoll.Accept(socket, Settings.Limits, _logger, unixPath);
            polled.Start(NewSession(polled));
            return;
        }
        var connection = new ClientConnection(socket, Settings.Limits, _logger) { UnixSocketPath = unixPath };
        var session = NewSession(connection);
        // Off the accept loop: a connection whose first receive completes at once must not delay accepts.
        ThreadPool.UnsafeQueueUserWorkItem(static state => _ = state.connection.RunAsync(state.session), (connection, session), preferLocal: false);
    }

    /// <summary>The session of an accepted connection, registered with the clients.</summary>
    private RespServerSession NewSession(ISessionChannel connection)
    {
        var session = new RespServerSession(this, connection);
        Clients.Add(session);
        return session;
    }

    /// <summary>SHUTDOWN FORCE / NOSAVE: stop even when the checkpoint at stop fails.</summary>
    public bool ForceStop { get; set; }

    /// <summary>Stops accepting, lets in-flight batches finish, closes every connection, takes the checkpoint at stop; stops
    /// even when that checkpoint fails (logged). For the embedding application and Dispose.</summary>
    public void Stop(TimeSpan? grace = null) => TryStop(grace, mustStop: true);

    /// <summary>
    /// As Redis on SIGTERM: stops unless the checkpoint at stop fails. Then ("can't exit") the server listens and serves
    /// again and false is returned; the data stays in memory and on the log, and a later attempt can succeed (e.g. once
    /// disk space is back). With mustStop (or ForceStop), a failed checkpoint is logged and the server stops anyway.
    /// </summary>
    public bool TryStop(TimeSpan? grace = null, bool mustStop = false)
    {
        lock (_stopLock)
        {
            if (Interlocked.Exchange(ref _stopped, 1) != 0) return true;
            _housekeeping?.Dispose();
            foreach (var l in _listeners) l.Dispose();
            _listeners.Clear();
            _unixListener?.Dispose(); // deletes the socket file
            _unixListener = null;
            _metrics?.Dispose();
            _metrics = null;
            foreach (var s in Clients.Snapshot()) s.Kill(graceful: true);
            Pause.Unpause(); // held clients see they were killed and go
            var deadline = DateTime.UtcNow + (grace ?? TimeSpan.FromSeconds(5));
            while (Clients.Count > 0 && DateTime.UtcNow < deadline) Thread.Sleep(10);
            // Whoever is still there is stuck (e.g. a client that stopped reading our replies): close it now.
            foreach (var s in Clients.Snapshot()) s.Kill();
            deadline = DateTime.UtcNow + TimeSpan.FromSeconds(2);
            while (Clients.Count > 0 && DateTime.UtcNow < deadline) Thread.Sleep(10);
            // Background work that could delay the checkpoint or the exit (a compaction backlog) is cancelled first.
            Store.StopBackgroundWork();
            if (SaveOnStop && Checkpoints.ChangesSinceLastSave > 0)
            {
                // After a BGSAVE in progress, so that writes after its cut are in this one; a client still inside a command is
                // waited for by the checkpoint's key locks.
                try { Checkpoints.SaveAsync("shutdown", waitForRunning: true).GetAwaiter().GetResult(); }
                catch (Exception ex) when (!mustStop && !ForceStop)
                {
                    _logger.LogCritical("Error trying to save the DB, can't exit: {Error}. The server goes on serving; writes are refused " +
                        "until a checkpoint succeeds. Free disk space and stop it again, or stop it with SHUTDOWN NOSAVE (losing the writes " +
                        "since the last checkpoint).", ex.GetBaseException().Message);
                    Store.StartBackgroundWork();
                    Volatile.Write(ref _stopped, 0);
                    Interlocked.Exchange(ref _shutdownRaised, 0);
                    Start();
                    return false;
                }
                catch (Exception ex) { _logger.LogCritical("The checkpoint at shutdown failed: writes since the last checkpoint are lost: {Error}", ex.GetBaseException().Message); }
            }
            Checkpoints.Dispose();
            Aof?.Dispose();
            Store.Dispose(connectionsIdle: Clients.Count == 0);
            _epoll?.Dispose();
            _epoll = null;
            _logger.LogInformation("Server stopped");
            return true;
        }
    }

    private readonly object _stopLock = new();

    public void Dispose() => Stop();
}
