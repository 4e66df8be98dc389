// ConfigFileLoader: reads --config files into GarnetServerOptions.
//  - JSON: an object whose keys are option names ("port", "bind", "memory", ...); unknown keys are errors.
//  - redis.conf: "directive arg..." lines, # comments; directives that map onto our options are taken
//    (maxmemory -> memory), the rest are reported in Ignored so the host can log them.
// Values already set (from the command line) are kept: the command line wins.
using System.Text.Json;

namespace Garnet.Options;

public static class ConfigFileLoader
{
    public static List<string> Load(string path, GarnetServerOptions options)
    {
        if (!File.Exists(path)) throw new OptionsException($"Invalid value for --config: file '{path}' does not exist.");
        string text = File.ReadAllText(path);
        bool json = path.EndsWith(".json", StringComparison.OrdinalIgnoreCase) || text.TrimStart().StartsWith('{');
        return json ? LoadJson(path, text, options) : LoadRedisConf(path, text, options);
    }

    private static List<string> LoadJson(string path, string text, GarnetServerOptions options)
    {
        JsonDocument doc;
        try { doc = JsonDocument.Parse(text, new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true }); }
        catch (JsonException ex) { throw new OptionsException($"Invalid value for --config: '{path}' is not valid JSON ({ex.Message})."); }
        using (doc)
        {
            if (doc.RootElement.ValueKind != JsonValueKind.Object)
                throw new OptionsException($"Invalid value for --config: '{path}' must hold a JSON object.");
            foreach (var p in doc.RootElement.EnumerateObject())
            {
                string value = p.Value.ValueKind switch
                {
                    JsonValueKind.String => p.Value.GetString()!,
                    JsonValueKind.True => "true",
                    JsonValueKind.False => "false",
                    JsonValueKind.Number => p.Value.GetRawText(),
                    JsonValueKind.Array => string.Join(' ', p.Value.EnumerateArray().Select(e => e.ToString())),
                    _ => throw new OptionsException($"Invalid value for {p.Name} in '{path}': expected a string, a number or a boolean."),
                };
                if (!Apply(p.Name, value, options, redisConf: false))
                    throw new OptionsException($"Unknown option '{p.Name}' in '{path}'. Allowed: {string.Join(", ", KnownNames)}.");
            }
        }
        return [];
    }

    private static List<string> LoadRedisConf(string path, string text, GarnetServerOptions options)
    {
        var ignored = new List<string>();
        // In redis.conf the last occurrence of a directive wins: read them all first, then apply each once.
        var last = new Dictionary<string, (string name, string value, int line)>(StringComparer.OrdinalIgnoreCase);
        int lineNo = 0;
        foreach (var raw in text.Split('\n'))
        {
            lineNo++;
            var line = raw.Trim();
            if (line.Length == 0 || line[0] == '#') continue;
            int sp = line.IndexOfAny([' ', '\t']);
            string name = sp < 0 ? line : line[..sp];
            string value = sp < 0 ? "" : Unquote(line[(sp + 1)..].Trim());
            // client-output-buffer-limit appears once per client class: keep the last line of each class.
            string slot = name.Equals("client-output-buffer-limit", StringComparison.OrdinalIgnoreCase)
                ? name + " " + value.Split(' ', 2)[0].ToLowerInvariant() : name;
            if (name.Equals("save", StringComparison.OrdinalIgnoreCase))
            {
                // Every "save" line adds rules; save "" clears those before it (as in redis.conf).
                string previous = last.TryGetValue("save", out var p) && p.value != "" ? p.value + " " : "";
                last["save"] = (name, value == "" ? "" : previous + value, lineNo);
                continue;
            }
            last[slot] = (name, value, lineNo);
        }
        foreach (var (name, value, line) in last.Values.OrderBy(v => v.line))
        {
            // maxmemory 0 means "no limit" in Redis; our store always has a budget, so keep the default.
            if (name.Equals("maxmemory", StringComparison.OrdinalIgnoreCase) && value == "0") continue;
            if (!Apply(name.ToLowerInvariant(), value, options, redisConf: true)) ignored.Add($"{name} (line {line})");
        }
        return ignored;
    }

    /// <summary>The collection encoding limits (Redis's names and their ziplist aliases), e.g. hash-max-listpack-entries.</summary>
    public static bool IsEncodingLimit(string name) =>
        System.Text.RegularExpressions.Regex.IsMatch(name, @"^(hash|zset|set|list)-max-(listpack|ziplist|intset)-(entries|value|size)$")
        && Garnet.server.Config.ConfigParameters.Find(name) is not null;

    private static string Unquote(string v) =>
        v.Length >= 2 && ((v[0] == '"' && v[^1] == '"') || (v[0] == '\'' && v[^1] == '\'')) ? v[1..^1] : v;

    private static readonly string[] KnownNames =
        ["bind", "port", "memory", "dir", "requirepass", "databases", "loglevel", "maxclients", "timeout", "auth-max-failures",
         "proto-max-bulk-len", "client-query-buffer-limit", "client-output-buffer-limit", "save", "ignore-unreadable-data", "aof", "aof-fsync", "compaction-interval", "read-queue-depth", "disk-read-engine", "network-engine", "network-threads", "min-free-disk", "protected-mode", "notify-keyspace-events",
         "unixsocket", "unixsocketperm", "metrics-port", "slowlog-log-slower-than", "slowlog-max-len", "latency-monitor-threshold",
         "latency-tracking", "latency-tracking-info-percentiles", "enable-debug-command"];

    private static int ParseInt(string name, string value) =>
        int.TryParse(value, System.Globalization.NumberStyles.AllowLeadingSign, System.Globalization.CultureInfo.InvariantCulture, out int n)
            ? n : throw new OptionsException($"Invalid value for {name}: '{value}'. Allowed: an integer.");

    private static bool ParseBool(string name, string value) => value.ToLowerInvariant() switch
    {
        "yes" or "true" or "1" => true,
        "no" or "false" or "0" => false,
        _ => throw new OptionsException($"Invalid value for {name}: '{value}'. Allowed: yes or no."),
    };

    private static bool Apply(string name, string value, GarnetServerOptions o, bool redisConf)
    {
        switch (name.ToLowerInvariant())
        {
            case "bind": o.Bind ??= value; return true;
            case "port": o.Port ??= ParseInt("port", value); return true;
            case "memory": o.Memory ??= value; return true;
            case "maxmemory": if (!redisConf) return false; o.Memory ??= value; return true;
            case "dir": o.Dir ??= value; return true;
            case "save": o.Save ??= value; return true;
            case "compaction-interval": o.CompactionInterval ??= ParseInt("compaction-interval", value); return true;
            case "read-queue-depth": o.ReadQueueDepth ??= ParseInt("read-queue-depth", value); return true;
            case "disk-read-engine": o.DiskReadEngine ??= value; return true;
            case "network-engine": o.NetworkEngine ??= value; return true;
            case "network-threads": o.NetworkThreads ??= ParseInt("network-threads", value); return true;
            case "min-free-disk": o.MinFreeDisk ??= value; return true;
            case "aof": if (redisConf) return false; o.Aof |= ParseBool("aof", value); return true;
            case "appendonly": if (!redisConf) return false; o.Aof |= ParseBool("appendonly", value); return true;
            case "aof-fsync": if (redisConf) return false; o.AofFsync ??= value; return true;
            case "appendfsync": if (!redisConf) return false; o.AofFsync ??= value; return true;
            case "ignore-unreadable-data": if (redisConf) return false; o.IgnoreUnreadableData |= ParseBool("ignore-unreadable-data", value); return true;
            case "requirepass": o.RequirePass ??= value; return true;
            case "protected-mode": o.ProtectedMode ??= value; return true;
            case "notify-keyspace-events": o.NotifyKeyspaceEvents ??= value; return true;
            case var encoding when IsEncodingLimit(encoding): o.ObjectEncodings[encoding] = value; return true;
            case "unixsocket": o.UnixSocket ??= value; return true;
            case "unixsocketperm": o.UnixSocketPerm ??= value; return true;
            case "metrics-port": o.MetricsPort ??= ParseInt("metrics-port", value); return true;
            case "slowlog-log-slower-than": o.SlowlogLogSlowerThan ??= ParseInt("slowlog-log-slower-than", value); return true;
            case "slowlog-max-len": o.SlowlogMaxLen ??= ParseInt("slowlog-max-len", value); return true;
            case "latency-monitor-threshold": o.LatencyMonitorThreshold ??= ParseInt("latency-monitor-threshold", value); return true;
            case "latency-tracking": o.LatencyTracking ??= value; return true;
            case "enable-debug-command": o.EnableDebugCommand ??= value; return true;
            case "latency-tracking-info-percentiles": o.LatencyTrackingInfoPercentiles ??= value; return true;
            case "databases": o.Databases ??= ParseInt("databases", value); return true;
            case "loglevel": o.LogLevel ??= value; return true;
            case "maxclients": o.MaxClients ??= ParseInt("maxclients", value); return true;
            case "timeout": o.Timeout ??= ParseInt("timeout", value); return true;
            case "auth-max-failures": o.AuthMaxFailures ??= ParseInt("auth-max-failures", value); return true;
            case "proto-max-bulk-len": o.ProtoMaxBulkLen ??= value; return true;
            case "client-query-buffer-limit": o.ClientQueryBufferLimit ??= value; return true;
            case "client-output-buffer-limit":
                if (redisConf)
                {
                    // redis.conf form, one line per class: "normal 0 0 0", "pubsub 32mb 8mb 60" (checked by SettingsBuilder).
                    o.OutputBufferLimitsFromFile.Add(value);
                    return true;
                }
                o.ClientOutputBufferLimit ??= value;
                return true;
            default: return false;
        }
    }
}
