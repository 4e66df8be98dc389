// BenchmarkSettings: the validated form of Options, with mode-dependent defaults filled in.
// Invariants: every field is in range once From returns (a bad value throws SettingsException with a one-line
// message naming the option); Workload percentages sum to 100; Threads is non-empty and every count >= 1.
using System.Globalization;
using Garnet.client;

namespace Resp.benchmark;

public sealed class SettingsException(string message) : Exception(message);

public sealed class BenchmarkSettings
{
    public required RespConnectionOptions Connection { get; init; }

    /// <summary>What the runs connect to, as the output, the chart and the report name it: host:port or the Unix socket path.</summary>
    public string Target => Connection.UnixSocket is { } path ? "unix:" + path : $"{Connection.Host}:{Connection.Port}";
    public required bool Online { get; init; }
    public required OpType Op { get; init; }
    public required OpType[] WorkloadOps { get; init; }
    public required int[] WorkloadPercents { get; init; }
    public required long DbSize { get; init; }
    public required int KeyLength { get; init; }
    public required int ValueLength { get; init; }
    public required int MKeys { get; init; }
    public required int Ttl { get; init; }
    public required int LoadThreads { get; init; }
    public required bool SkipLoad { get; init; }
    public required int BatchSize { get; init; }
    public required int Itp { get; init; }
    public required int[] Threads { get; init; }

    /// <summary>Online mode: connections per thread (1: each thread has one connection and blocks on it).</summary>
    public int Clients { get; init; } = 1;
    public required int RuntimeSeconds { get; init; }
    public required long TotalOps { get; init; }
    public required bool Zipf { get; init; }
    public required double ZipfSkew { get; init; }
    public required long Seed { get; init; }
    public required string? JsonFile { get; init; }
    public string? ChartFile { get; init; }

    /// <summary>The loader of the key space: the op's own (offline) or that of the workload's largest share (online).</summary>
    public LoaderType Loader
    {
        get
        {
            if (!Online) return OpTypes.Loader(Op);
            int best = -1;
            for (int i = 0; i < WorkloadOps.Length; i++)
                if (OpTypes.Loader(WorkloadOps[i]) != LoaderType.None && (best < 0 || WorkloadPercents[i] > WorkloadPercents[best])) best = i;
            return best < 0 ? LoaderType.None : OpTypes.Loader(WorkloadOps[best]);
        }
    }

    public static BenchmarkSettings From(Options o)
    {
        if (o.Port is < 1 or > 65535) throw Bad("--port", o.Port, "an integer from 1 to 65535");
        if (string.IsNullOrWhiteSpace(o.Host)) throw Bad("--host", o.Host, "a host name or IP address");
        if (o.User is not null && o.Auth is null) throw new SettingsException("--user needs --auth (the password).");
        if (o.TlsInsecure && !o.Tls) throw new SettingsException("--tls-insecure needs --tls.");
        if (o.UnixSocket is not null && o.Tls) throw new SettingsException("--tls is not available with --unixsocket.");
        if (o.Protocol is not (2 or 3)) throw Bad("--protocol", o.Protocol, "2 or 3");
        if (!OpTypes.TryParse(o.Op, out var op)) throw Bad("--op", o.Op, OpTypes.Names);
        if (o.DbSize < 1) throw Bad("--dbsize", o.DbSize, "an integer of at least 1");
        int digits = (o.DbSize - 1).ToString(CultureInfo.InvariantCulture).Length;
        if (o.KeyLength < digits || o.KeyLength > 1 << 20)
            throw Bad("--keylength", o.KeyLength, $"at least {digits} (the digits of dbsize-1) and at most 1048576");
        if (o.ValueLength < 1 || o.ValueLength > 64 << 20) throw Bad("--valuelength", o.ValueLength, "from 1 to 67108864");
        if (o.MKeys < 1 || o.MKeys > 100_000) throw Bad("--mkeys", o.MKeys, "from 1 to 100000");
        if (o.Ttl < 1) throw Bad("--ttl", o.Ttl, "an integer of at least 1");
        int loadThreads = o.LoadThreads ?? Environment.ProcessorCount;
        if (loadThreads < 1 || loadThreads > 1024) throw Bad("--load-threads", loadThreads, "from 1 to 1024");
        int batch = o.BatchSize ?? (o.Online ? 1 : 4096);
        if (batch < 1 || batch > 1 << 20) throw Bad("--batchsize", batch, "from 1 to 1048576");
        if (o.Itp < 1 || o.Itp > 1 << 16) throw Bad("--itp", o.Itp, "from 1 to 65536");
        var threads = ParseList(o.Threads, "--threads", "a comma list of thread counts from 1 to 1024, e.g. 1,2,4");
        if (threads.Any(t => t < 1 || t > 1024)) throw Bad("--threads", o.Threads, "a comma list of thread counts from 1 to 1024, e.g. 1,2,4");
        if (o.Clients < 1 || o.Clients > 1024) throw Bad("--clients", o.Clients, "from 1 to 1024");
        if (o.Clients > 1 && !o.Online) throw new SettingsException("--clients needs --online (offline mode runs one connection per thread).");
        if (o.Clients > 1 && o.Tls) throw new SettingsException("--clients is not available with --tls (one thread waits for several plain sockets).");
        if (o.Runtime < 1) throw Bad("--runtime", o.Runtime, "an integer of at least 1 (seconds)");
        if (o.TotalOps < 0) throw Bad("--totalops", o.TotalOps, "0 (no limit) or a positive integer");
        if (!(o.ZipfSkew > 0 && o.ZipfSkew < 1)) throw Bad("--zipf-skew", o.ZipfSkew, "a number greater than 0 and less than 1");
        if (o.Timeout < 1) throw Bad("--timeout", o.Timeout, "an integer of at least 1 (milliseconds)");

        OpType[] ops = [op];
        int[] percents = [100];
        if (o.OpWorkload is not null || o.OpPercent is not null)
        {
            if (!o.Online) throw new SettingsException("--op-workload and --op-percent need --online (offline mode runs one --op).");
            if (o.OpWorkload is null) throw new SettingsException("--op-percent needs --op-workload.");
            var names = o.OpWorkload.Split(',', StringSplitOptions.TrimEntries);
            ops = new OpType[names.Length];
            for (int i = 0; i < names.Length; i++)
                if (!OpTypes.TryParse(names[i], out ops[i]) || ops[i] == OpType.TXN) throw Bad("--op-workload", o.OpWorkload, "a comma list of " + OpTypes.Names + " (TXN: offline mode only)");
            if (ops.Distinct().Count() != ops.Length) throw Bad("--op-workload", o.OpWorkload, "a list without repeats");
            if (o.OpPercent is null)
            {
                if (ops.Length != 1) throw new SettingsException("--op-workload with several operations needs --op-percent.");
                percents = [100];
            }
            else
            {
                percents = ParseList(o.OpPercent, "--op-percent", "a comma list of percentages, e.g. 60,30,10");
                if (percents.Length != ops.Length) throw new SettingsException($"--op-percent has {percents.Length} values for {ops.Length} operations in --op-workload.");
                if (percents.Any(p => p < 0) || percents.Sum() != 100) throw Bad("--op-percent", o.OpPercent, "non-negative percentages that sum to 100");
            }
        }

        return new BenchmarkSettings
        {
            Connection = new RespConnectionOptions
            {
                Host = o.Host,
                Port = o.Port,
                UnixSocket = o.UnixSocket,
                Password = o.Auth,
                User = o.User,
                Tls = o.Tls,
                TlsInsecure = o.TlsInsecure,
                TlsServerName = o.TlsHost,
                Protocol = o.Protocol,
                TimeoutMs = o.Timeout,
            },
            Online = o.Online,
            Op = op,
            WorkloadOps = ops,
            WorkloadPercents = percents,
            DbSize = o.DbSize,
            KeyLength = o.KeyLength,
            ValueLength = o.ValueLength,
            MKeys = o.MKeys,
            Ttl = o.Ttl,
            LoadThreads = loadThreads,
            SkipLoad = o.SkipLoad,
            BatchSize = batch,
            Itp = o.Itp,
            Threads = threads,
            Clients = o.Clients,
            RuntimeSeconds = o.Runtime,
            TotalOps = o.TotalOps,
            Zipf = o.Zipf,
            ZipfSkew = o.ZipfSkew,
            Seed = o.Seed,
            JsonFile = o.Json,
            ChartFile = o.Chart,
        };
    }

    private static int[] ParseList(string text, string option, string allowed)
    {
        var parts = text.Split(',', StringSplitOptions.TrimEntries);
        var result = new int[parts.Length];
        for (int i = 0; i < parts.Length; i++)
            if (!int.TryParse(parts[i], NumberStyles.Integer, CultureInfo.InvariantCulture, out result[i])) throw Bad(option, text, allowed);
        return result;
    }

    private static SettingsException Bad(string option, object? value, string allowed) =>
        new($"Invalid value for {option}: '{Convert.ToString(value, CultureInfo.InvariantCulture)}'. Allowed: {allowed}.");
}
