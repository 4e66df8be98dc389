// JsonReport: writes the settings and results of a benchmark as one JSON document (--json FILE), for scripts.
// Invariants: Utf8JsonWriter only (no reflection); latencies are in microseconds, rates in operations per
// second; the document is written whole at the end of the program, replacing the file.
using System.Text.Json;

namespace Resp.benchmark;

public static class JsonReport
{
    public static void Write(string path, BenchmarkSettings s, LoadResult? load,
        IReadOnlyList<OfflineRunResult> offline, IReadOnlyList<OnlineRunResult> online)
    {
        using var stream = File.Create(path);
        using var w = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true });
        w.WriteStartObject();
        w.WriteString("tool", "Resp.benchmark");
        w.WriteString("mode", s.Online ? "online" : "offline");
        w.WriteStartObject("settings");
        w.WriteString("host", s.Connection.Host);
        w.WriteNumber("port", s.Connection.Port);
        if (s.Connection.UnixSocket is { } unixSocket) w.WriteString("unixsocket", unixSocket);
        w.WriteBoolean("tls", s.Connection.Tls);
        w.WriteNumber("protocol", s.Connection.Protocol);
        if (!s.Online) w.WriteString("op", s.Op.ToString());
        else
        {
            w.WriteStartObject("workload");
            for (int i = 0; i < s.WorkloadOps.Length; i++) w.WriteNumber(s.WorkloadOps[i].ToString(), s.WorkloadPercents[i]);
            w.WriteEndObject();
        }
        w.WriteNumber("dbsize", s.DbSize);
        w.WriteNumber("keylength", s.KeyLength);
        w.WriteNumber("valuelength", s.ValueLength);
        w.WriteNumber("batchsize", s.BatchSize);
        w.WriteNumber("itp", s.Itp);
        w.WriteNumber("clients", s.Clients);
        w.WriteString("keys", s.Zipf ? "zipf" : "uniform");
        if (s.Zipf) w.WriteNumber("zipfSkew", s.ZipfSkew);
        w.WriteNumber("runtime", s.RuntimeSeconds);
        w.WriteNumber("totalops", s.TotalOps);
        w.WriteEndObject();

        if (load is not null)
        {
            w.WriteStartObject("load");
            w.WriteString("loader", load.Loader.ToString());
            w.WriteNumber("keys", load.Keys);
            w.WriteNumber("seconds", load.Seconds);
            w.WriteNumber("errors", load.Errors);
            if (load.FirstError is not null) w.WriteString("firstError", load.FirstError);
            w.WriteEndObject();
        }

        w.WriteStartArray("runs");
        foreach (var r in offline)
        {
            w.WriteStartObject();
            w.WriteNumber("threads", r.Threads);
            w.WriteNumber("ops", r.Ops);
            w.WriteNumber("seconds", r.Seconds);
            w.WriteNumber("opsPerSecond", r.OpsPerSecond);
            w.WriteNumber("errors", r.Errors);
            w.WriteNumber("nulls", r.Nulls);
            if (r.FirstError is not null) w.WriteString("firstError", r.FirstError);
            w.WriteNumber("senderAllocatedBytes", r.SenderAllocatedBytes);
            w.WriteNumber("readerAllocatedBytes", r.ReaderAllocatedBytes);
            w.WriteEndObject();
        }
        foreach (var r in online)
        {
            w.WriteStartObject();
            w.WriteNumber("threads", r.Threads);
            w.WriteNumber("ops", r.Ops);
            w.WriteNumber("seconds", r.Seconds);
            w.WriteNumber("opsPerSecond", r.OpsPerSecond);
            w.WriteNumber("errors", r.Errors);
            if (r.FirstError is not null) w.WriteString("firstError", r.FirstError);
            w.WriteNumber("senderAllocatedBytes", r.SenderAllocatedBytes);
            w.WriteNumber("readerAllocatedBytes", r.ReaderAllocatedBytes);
            WriteLatency(w, "latencyMicros", r.All);
            w.WriteStartObject("perOp");
            foreach (var op in r.PerOp)
            {
                w.WriteStartObject(op.Op.ToString());
                w.WriteNumber("ops", op.Latency.Count);
                w.WriteNumber("errors", op.Errors);
                WriteLatency(w, "latencyMicros", op.Latency);
                w.WriteEndObject();
            }
            w.WriteEndObject();
            w.WriteStartArray("intervals");
            foreach (var i in r.Intervals)
            {
                w.WriteStartObject();
                w.WriteNumber("second", i.Second);
                w.WriteNumber("ops", i.Ops);
                w.WriteNumber("opsPerSecond", i.OpsPerSecond);
                w.WriteNumber("errors", i.Errors);
                WriteLatency(w, "latencyMicros", i.Latency);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteEndObject();
        }
        w.WriteEndArray();
        w.WriteEndObject();
    }

    private static void WriteLatency(Utf8JsonWriter w, string name, LatencySummary l)
    {
        w.WriteStartObject(name);
        w.WriteNumber("mean", Math.Round(l.Mean / 1000.0, 3));
        w.WriteNumber("p50", l.P50 / 1000.0);
        w.WriteNumber("p90", l.P90 / 1000.0);
        w.WriteNumber("p99", l.P99 / 1000.0);
        w.WriteNumber("p99.9", l.P999 / 1000.0);
        w.WriteNumber("p99.99", l.P9999 / 1000.0);
        w.WriteNumber("max", l.Max / 1000.0);
        w.WriteEndObject();
    }
}
