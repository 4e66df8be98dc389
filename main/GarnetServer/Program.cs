// The GarnetServer executable: options (command line + --config file) -> validated settings -> a generic host
// that runs the server until Ctrl-C, SIGTERM or the SHUTDOWN command.
using Garnet;
using Garnet.Options;
using Garnet.server;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

// Run socket completions on the epoll threads instead of handing each one to the thread pool: one hop less per
// request (measured with PING: server CPU per request 2.20 to 1.30 µs at pipeline 16, 27.15 to 17.50 µs at pipeline 1;
// docs/performance.md, "Runtime settings and why"). Must be set before the first socket operation; a value set by the
// user wins.
if (Environment.GetEnvironmentVariable("DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS") is null)
    Environment.SetEnvironmentVariable("DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS", "1");

// Test seam (test/Garnet.test/Faults/UnhandledExceptionTests): arms fault points, "point[:times],...", so
// the tests can prove that a failure at a thread or callback entry point does not end the process.
Garnet.common.Util.FaultPoints.ArmFromSpec(Environment.GetEnvironmentVariable("GARNET_TEST_FAULTS"));
if (Environment.GetEnvironmentVariable("GARNET_TEST_FAULTS") is { Length: > 0 })
    Garnet.storage.Util.StorageFaults.Inject = Garnet.common.Util.FaultPoints.Hit;

GarnetServerOptions? options;
ServerSettings settings;
List<string> ignored;
bool hostStarted = false; // until then a failure is a start-up failure: one line on stderr, exit code 1
try
{
    options = OptionsParser.Parse(args, Console.Out, out int exitCode, out ignored, Console.Error);
    if (options is null) return exitCode;
    settings = SettingsBuilder.Build(options);
}
catch (OptionsException ex)
{
    Console.Error.WriteLine(ex.Message);
    return 1;
}
catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
{
    Console.Error.WriteLine($"Invalid value for --config: cannot read the file ({ex.Message}).");
    return 1;
}

var levelSwitch = new LogLevelSwitch(settings.LogLevel);
settings.LogLevelChanged = levelSwitch.Set;

var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = [], ContentRootPath = AppContext.BaseDirectory });
builder.Logging.ClearProviders();
builder.Logging.SetMinimumLevel(LogLevel.Trace);
// Not the host's own "Hosting failed to start" error with its stack trace: the catch around RunAsync prints one line
// (and the stack trace at --loglevel debug).
builder.Logging.AddFilter((_, category, level) => levelSwitch.IsEnabled(level)
    && (hostStarted || level < LogLevel.Error || category != "Microsoft.Extensions.Hosting.Internal.Host"));
builder.Logging.AddSimpleConsole(o => { o.SingleLine = true; o.TimestampFormat = "HH:mm:ss.fff "; });
builder.Services.AddSingleton(settings);
builder.Services.AddSingleton(sp => new GarnetServer(settings, sp.GetRequiredService<ILoggerFactory>()));
// Signals and SHUTDOWN stop the server as Redis does (no exit when the checkpoint at stop fails): ServerLifetime.
builder.Services.AddSingleton<IHostLifetime, ServerLifetime>();
builder.Services.AddHostedService(sp => new GarnetHostedService(
    sp.GetRequiredService<GarnetServer>(),
    sp.GetRequiredService<ILogger<GarnetHostedService>>(),
    ignored));

IHost? host = null;
try
{
    // Building the host builds the server (recovery, the data directory lock): its failures are start-up failures too.
    host = builder.Build();
    host.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStarted.Register(() => hostStarted = true);
    await host.RunAsync();
}
catch (Exception ex) when (!hostStarted)
{
    // Port in use, --dir locked, not creatable or not writable, unreadable data: one line naming the option, value and reason.
    Console.Error.WriteLine(StartupFailure.OneLine(ex, settings));
    if (settings.LogLevel == "debug") Console.Error.WriteLine(ex);
    return 1;
}
finally { host?.Dispose(); }
return 0;

sealed class GarnetHostedService(GarnetServer server, ILogger<GarnetHostedService> logger, List<string> ignoredConfig) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (var d in ignoredConfig) logger.LogWarning("Config directive not supported, ignored: {Directive}", d);
        server.Start();
        server.Server.ReturnIdleGcMemory = true; // this process is ours alone: see RespServer.ReturnIdleGcMemory
        logger.LogInformation("Garnet (independent implementation) {Version} ready: {EndPoints}, memory budget {Memory} bytes, data dir {Dir}",
            typeof(GarnetServer).Assembly.GetName().Version?.ToString(3), string.Join(", ", server.EndPoints), server.Settings.MemoryBytes,
            Path.GetFullPath(server.Settings.Dir));
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        // Normally ServerLifetime has stopped the server already (then this is quick); otherwise it stops now, whatever happens.
        server.Stop(TimeSpan.FromSeconds(5));
        server.Dispose();
        return Task.CompletedTask;
    }
}
