// Maps Redis log levels (debug, verbose, notice, warning, nothing) onto Microsoft.Extensions.Logging levels,
// and holds the level that CONFIG SET loglevel changes at run time.
using Microsoft.Extensions.Logging;

namespace Garnet;

public sealed class LogLevelSwitch
{
    public LogLevelSwitch(string redisLevel) => Set(redisLevel);

    public LogLevel Minimum { get; private set; }

    public void Set(string redisLevel) => Minimum = redisLevel switch
    {
        "debug" => LogLevel.Trace,
        "verbose" => LogLevel.Debug,
        "notice" => LogLevel.Information,
        "warning" => LogLevel.Warning,
        _ => LogLevel.None,
    };

    public bool IsEnabled(LogLevel level) => level != LogLevel.None && level >= Minimum;
}
