// The GarnetServer executable: options (command line + --config file) -> validated settings -> a generic host
// that runs the server until Ctrl-C, SIGTERM or the SHUTDOWN command.
using Garnet;
using Garnet.Options;
using Garnet.server;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

// Run socket completions on the epoll threads instead of handing each one to the thread pool: one hop less per
// request (measured: PING at pipeline 1 went from 0.77x to 1.03x of Redis, CPU per request halved; see
// docs/performance.md). Must be set before the first socket operation; a value set by the user wins.
if (Environment.GetEnvironmentVariable("DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS") is null)
    Environment.SetEnvironmentVariable("DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS", "1");

GarnetServerOptions? options;
ServerSettings settings;
List<string> ignored;
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
builder.Logging.AddFilter((_, _, level) => levelSwitch.IsEnabled(level));
builder.Logging.AddSimpleConsole(o => { o.SingleLine = true; o.TimestampFormat = "HH:mm:ss.fff "; });
builder.Services.AddSingleton(settings);
builder.Services.AddSingleton(sp => new GarnetServer(settings, sp.GetRequiredService<ILoggerFactory>()));
// Signals and SHUTDOWN stop the server as Redis does (no exit when the checkpoint at stop fails): ServerLifetime.
builder.Services.AddSingleton<IHostLifetime, ServerLifetime>();
builder.Services.AddHostedService(sp => new GarnetHostedService(
    sp.GetRequiredService<GarnetServer>(),
    sp.GetRequiredService<ILogger<GarnetHostedService>>(),
    ignored));

using var host = builder.Build();
try
{
    await host.RunAsync();
}
catch (Exception ex) when (ex is System.Net.Sockets.SocketException or IOException or UnauthorizedAccessException)
{
    Console.Error.WriteLine($"Could not start: {ex.Message}");
    return 1;
}
catch (Exception ex) when (FindPersistenceError(ex) is { } pe)
{
    Console.Error.WriteLine(pe.Message);
    return 1;
}
return 0;

static Garnet.server.Persistence.PersistenceException? FindPersistenceError(Exception? ex)
{
    for (; ex is not null; ex = ex.InnerException)
    {
        if (ex is Garnet.server.Persistence.PersistenceException pe) return pe;
        if (ex is AggregateException ae && ae.InnerExceptions.Select(FindPersistenceError).FirstOrDefault(x => x is not null) is { } inner) return inner;
    }
    return null;
}

sealed class GarnetHostedService(GarnetServer server, ILogger<GarnetHostedService> logger, List<string> ignoredConfig) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (var d in ignoredConfig) logger.LogWarning("Config directive not supported, ignored: {Directive}", d);
        server.Start();
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
