// GarnetServer: the embeddable server. Use it in any .NET program:
//     using var server = new GarnetServer(new GarnetServerOptions { Port = 6379 });
//     server.Start();
// Options are validated in the constructor (OptionsException with a one-line message).
// Invariants:
//  - The constructor locks the data directory (DataDirectoryLock) before the server reads or deletes anything in it,
//    and releases the lock if building the server fails; Stop/Dispose release it after the server has stopped.
//  - Start-up failures are exceptions with one-line messages: OptionsException (an invalid value, e.g. a --dir that
//    cannot be created or written), DataDirectoryInUseException (another server holds --dir), SocketException
//    ("Could not create server TCP listening socket <address>: bind: <reason>"), PersistenceException (unreadable data).
using System.Net;
using Garnet.Options;
using Garnet.server;
using Microsoft.Extensions.Logging;

namespace Garnet;

public sealed class GarnetServer : IDisposable
{
    private readonly RespServer _server;
    private readonly DataDirectoryLock _dirLock;
    private readonly ILogger _logger;

    public GarnetServer(GarnetServerOptions options, ILoggerFactory? loggerFactory = null)
        : this(SettingsBuilder.Build(WithConfigFile(options)), loggerFactory)
    {
    }

    /// <summary>From settings already validated (SettingsBuilder.Build).</summary>
    public GarnetServer(ServerSettings settings, ILoggerFactory? loggerFactory = null)
    {
        Settings = settings;
        _dirLock = DataDirectoryLock.Acquire(settings.Dir);
        try { _server = new RespServer(Settings, loggerFactory); }
        catch
        {
            _dirLock.Dispose();
            throw;
        }
        _logger = _server.LoggerFactory.CreateLogger("Garnet.Server");
        ContainedFaults.ReportTo(_server.LoggerFactory);
        server.Metrics.MemoryFigures.Attach(_server); // used_memory_startup and the peak sampling measure from now on
    }

    private static GarnetServerOptions WithConfigFile(GarnetServerOptions options)
    {
        if (options.ConfigFile is not null) ConfigFileLoader.Load(options.ConfigFile, options);
        return options;
    }

    /// <summary>Parses command-line style arguments (as the GarnetServer executable takes them). An invalid argument
    /// throws OptionsException with the same one line the executable prints; --help and --version are refused.</summary>
    public GarnetServer(string[] args, ILoggerFactory? loggerFactory = null)
        : this(ParseArgs(args), loggerFactory)
    {
    }

    private static GarnetServerOptions ParseArgs(string[] args)
    {
        var errors = new StringWriter();
        return OptionsParser.Parse(args, TextWriter.Null, out _, out _, errors)
            ?? throw new OptionsException(errors.ToString().Split('\n')[0].Trim() is { Length: > 0 } line ? line : "Invalid arguments: " + string.Join(' ', args));
    }

    public ServerSettings Settings { get; }

    /// <summary>The endpoints actually bound (useful with port 0).</summary>
    public IReadOnlyList<IPEndPoint> EndPoints => _server.EndPoints;

    public int Port => _server.EndPoints.Count > 0 ? _server.EndPoints[0].Port : Settings.Port;

    /// <summary>Raised when a client runs SHUTDOWN. If nobody handles it, the server stops itself.</summary>
    public event Action? ShutdownRequested
    {
        add => _server.ShutdownRequested += value;
        remove => _server.ShutdownRequested -= value;
    }

    /// <summary>The server's internals, for tests and benchmarks in process.</summary>
    public RespServer Server => _server;

    /// <summary>Binds every address and starts accepting. A required address that cannot be bound throws SocketException
    /// ("Could not create server TCP listening socket 127.0.0.1:6379: bind: Address already in use").</summary>
    public void Start()
    {
        _server.Start();
        if (server.Clients.ProtectedMode.StartupWarning(Settings) is { } warning) _logger.LogWarning("{Warning}", warning);
    }

    /// <summary>Stops accepting, lets in-flight batches finish (up to the grace period), closes connections, then
    /// releases the data directory.</summary>
    public void Stop(TimeSpan? grace = null)
    {
        _server.Stop(grace);
        _dirLock.Dispose();
    }

    /// <summary>As a Redis SIGTERM: stops unless the checkpoint at stop fails; then the server serves again (keeping the data
    /// directory) and false is returned.</summary>
    public bool TryStop(TimeSpan? grace = null)
    {
        if (!_server.TryStop(grace)) return false;
        _dirLock.Dispose();
        return true;
    }

    public void Dispose() => Stop();
}
