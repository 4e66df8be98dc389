// ConfigParameters: the parameters CONFIG GET / CONFIG SET know, with Redis's names and value forms.
// Invariants:
//  - Prepare validates a value without changing anything and returns the change to apply, so CONFIG SET
//    of several parameters is all-or-nothing.
//  - A parameter without Prepare is immutable at run time (set it at start-up with an option).
using System.Globalization;
using Garnet.common.Resp;
using Garnet.common.Util;

namespace Garnet.server.Config;

public sealed class ConfigParameter
{
    public required string Name { get; init; }
    public required Func<ServerSettings, string> Get { get; init; }
    /// <summary>Validates a new value; returns the change to apply, or an error text (Redis's wording).</summary>
    public Func<ServerSettings, string, (Action? apply, string? error)>? Prepare { get; init; }
}

public static class ConfigParameters
{
    public static readonly IReadOnlyList<ConfigParameter> All =
    [
        new() { Name = "bind", Get = s => string.Join(' ', s.Bind) },
        new() { Name = "port", Get = s => s.Port.ToString(CultureInfo.InvariantCulture) },
        new() { Name = "maxmemory", Get = s => s.MemoryBytes.ToString(CultureInfo.InvariantCulture) },
        new() { Name = "dir", Get = s => Path.GetFullPath(s.Dir) },
        new() { Name = "databases", Get = s => s.Databases.ToString(CultureInfo.InvariantCulture) },
        new()
        {
            Name = "requirepass", Get = s => s.RequirePass ?? "",
            Prepare = (s, v) => (() => s.RequirePass = v.Length == 0 ? null : v, null),
        },
        new()
        {
            Name = "loglevel", Get = s => s.LogLevel,
            Prepare = (s, v) =>
            {
                var level = v.ToLowerInvariant();
                if (!LogLevels.Contains(level)) return (null, "argument(s) must be one of the following: debug, verbose, notice, warning, nothing");
                return (() => { s.LogLevel = level; s.LogLevelChanged?.Invoke(level); }, null);
            },
        },
        new()
        {
            Name = "proto-max-bulk-len", Get = s => s.Limits.ProtoMaxBulkLen.ToString(CultureInfo.InvariantCulture),
            Prepare = (s, v) => MemoryValue(v, 1024 * 1024, RespLimits.AbsoluteMaxBuffer - 2, n => s.Limits.ProtoMaxBulkLen = n),
        },
        new()
        {
            Name = "client-query-buffer-limit", Get = s => s.Limits.QueryBufferLimit.ToString(CultureInfo.InvariantCulture),
            Prepare = (s, v) => MemoryValue(v, 1024 * 1024, RespLimits.AbsoluteMaxBuffer - 1, n => s.Limits.QueryBufferLimit = n),
        },
        new()
        {
            Name = "maxclients", Get = s => s.MaxClients.ToString(CultureInfo.InvariantCulture),
            Prepare = (s, v) => IntegerValue(v, 1, int.MaxValue, n => s.MaxClients = (int)n),
        },
        new()
        {
            Name = "timeout", Get = s => s.IdleTimeoutSeconds.ToString(CultureInfo.InvariantCulture),
            Prepare = (s, v) => IntegerValue(v, 0, int.MaxValue, n => s.IdleTimeoutSeconds = (int)n),
        },
        new()
        {
            Name = "client-output-buffer-limit",
            // Only the normal class's hard limit is enforced (replies are sent as they are produced, so a soft limit
            // has nothing to measure); replica and pubsub show Redis's defaults until those client kinds exist.
            Get = s => FormattableString.Invariant($"normal {s.OutputBufferHardLimit} 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
            Prepare = (s, v) =>
            {
                if (!TryParseOutputBufferLimit(v, out var hard, out _, out _, out var err)) return (null, err);
                return (hard < 0 ? () => { } : () => s.OutputBufferHardLimit = hard, null);
            },
        },
    ];

    public static readonly string[] LogLevels = ["debug", "verbose", "notice", "warning", "nothing"];

    public static ConfigParameter? Find(string name) =>
        All.FirstOrDefault(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase));

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

    /// <summary>Parses "class hard soft seconds [class hard soft seconds ...]"; hard = -1 when no normal class is given.</summary>
    public static bool TryParseOutputBufferLimit(string v, out long hard, out long soft, out int secs, out string? error)
    {
        hard = -1; soft = 0; secs = 0; error = null;
        var parts = v.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length == 0 || parts.Length % 4 != 0) { error = "Wrong number of arguments in buffer limit configuration."; return false; }
        for (int i = 0; i < parts.Length; i += 4)
        {
            var cls = parts[i].ToLowerInvariant();
            if (cls is not ("normal" or "replica" or "slave" or "pubsub")) { error = "Invalid client class specified in buffer limit configuration."; return false; }
            if (!MemorySize.TryParse(parts[i + 1], out long h) || !MemorySize.TryParse(parts[i + 2], out long so)
                || !int.TryParse(parts[i + 3], NumberStyles.None, CultureInfo.InvariantCulture, out int se))
            {
                error = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
                return false;
            }
            if (cls == "normal") { hard = h; soft = so; secs = se; }
        }
        return true;
    }
}
