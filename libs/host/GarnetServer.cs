// GarnetServer: the embeddable server. Use it in any .NET program:
//     using var server = new GarnetServer(new GarnetServerOptions { Port = 6379 });
//     server.Start();
// Options are validated in the constructor (OptionsException with a one-line message).
using System.Net;
using Garnet.Options;
using Garnet.server;
using Microsoft.Extensions.Logging;

namespace Garnet;

public sealed class GarnetServer : IDisposable
{
    private readonly RespServer _server;
    private readonly ILogger _logger;

    public GarnetServer(GarnetServerOptions options, ILoggerFactory? loggerFactory = null)
        : this(SettingsBuilder.Build(WithConfigFile(options)), loggerFactory)
    {
    }

    /// <summary>From settings already validated (SettingsBuilder.Build).</summary>
    public GarnetServer(ServerSettings settings, ILoggerFactory? loggerFactory = null)
    {
        Settings = settings;
        _server = new RespServer(Settings, loggerFactory);
        _logger = _server.LoggerFactory.CreateLogger("Garnet.Server");
        server.Metrics.MemoryFigures.Attach(_server); // used_memory_startup and the peak sampling measure from now on
    }

    private static GarnetServerOptions WithConfigFile(GarnetServerOptions options)
    {
        if (options.ConfigFile is not null) ConfigFileLoader.Load(options.ConfigFile, options);
        return options;
    }

    /// <summary>Parses command-line style arguments (as the GarnetServer executable takes them).</summary>
    public GarnetServer(string[] args, ILoggerFactory? loggerFactory = null)
        : this(OptionsParser.Parse(args, TextWriter.Null, out _, out _) ?? throw new OptionsException("Invalid arguments: " + string.Join(' ', args)), loggerFactory)
    {
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

    public void Start()
    {
        Directory.CreateDirectory(Settings.Dir);
        _server.Start();
        if (server.Clients.ProtectedMode.StartupWarning(Settings) is { } warning) _logger.LogWarning("{Warning}", warning);
    }

    /// <summary>Stops accepting, lets in-flight batches finish (up to the grace period), closes connections.</summary>
    public void Stop(TimeSpan? grace = null) => _server.Stop(grace);

    public void Dispose() => _server.Dispose();
}
