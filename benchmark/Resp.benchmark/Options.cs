// Options: every command-line option of Resp.benchmark (CommandLineParser). --help prints these texts.
// Invariants: raw values only, as typed; BenchmarkSettings.From validates them and fills mode-dependent defaults
// (a null here means "not given").
using CommandLine;

namespace Resp.benchmark;

public sealed class Options
{
    [Option("host", Default = "127.0.0.1", HelpText = "Server host name or IP address.")]
    public string Host { get; set; } = "127.0.0.1";

    [Option("port", Default = 6379, HelpText = "Server TCP port.")]
    public int Port { get; set; } = 6379;

    [Option("unixsocket", HelpText = "Connect through this Unix domain socket path instead of --host/--port (as redis-benchmark -s).")]
    public string? UnixSocket { get; set; }

    [Option("auth", HelpText = "Password sent with AUTH after connecting (and by every client).")]
    public string? Auth { get; set; }

    [Option("user", HelpText = "User name for AUTH (ACL form 'AUTH user password'); needs --auth.")]
    public string? User { get; set; }

    [Option("tls", Default = false, HelpText = "Connect with TLS (SslStream).")]
    public bool Tls { get; set; }

    [Option("tls-insecure", Default = false, HelpText = "With --tls: accept any server certificate (self-signed, wrong name).")]
    public bool TlsInsecure { get; set; }

    [Option("tls-host", HelpText = "With --tls: the name the server certificate must carry (also sent as SNI). Default: --host.")]
    public string? TlsHost { get; set; }

    [Option("protocol", Default = 2, HelpText = "RESP protocol: 2, or 3 (sends HELLO 3 on every connection).")]
    public int Protocol { get; set; } = 2;

    [Option("online", Default = false, HelpText = "Latency mode: a mix of operations (--op-workload/--op-percent), percentiles every second and at the end. Without it: throughput mode with pre-built batches of one --op.")]
    public bool Online { get; set; }

    [Option("op", Default = "GET", HelpText = "Offline mode: the operation: GET, SET, MGET, MSET, INCR, PING, SETEX, DEL, PFADD, ZADD, ZREM, LPUSH, LPOP, HSET, HGET. Online mode: the workload when --op-workload is not given.")]
    public string Op { get; set; } = "GET";

    [Option("op-workload", HelpText = "Online mode: comma list of operations, e.g. GET,SET,DEL.")]
    public string? OpWorkload { get; set; }

    [Option("op-percent", HelpText = "Online mode: comma list of percentages for --op-workload, summing to 100, e.g. 60,30,10.")]
    public string? OpPercent { get; set; }

    [Option("dbsize", Default = 1024L, HelpText = "Number of distinct keys (loaded before the run, chosen from during it).")]
    public long DbSize { get; set; } = 1024;

    [Option("keylength", Default = 8, HelpText = "Key length in bytes (keys are the key index in zero-padded decimal; must fit dbsize-1).")]
    public int KeyLength { get; set; } = 8;

    [Option("valuelength", Default = 8, HelpText = "Value length in bytes (SET, MSET, SETEX, LPUSH, HSET and the load phase).")]
    public int ValueLength { get; set; } = 8;

    [Option("mkeys", Default = 10, HelpText = "Keys per MGET / MSET command.")]
    public int MKeys { get; set; } = 10;

    [Option("ttl", Default = 60, HelpText = "Seconds of SETEX.")]
    public int Ttl { get; set; } = 60;

    [Option("load-threads", HelpText = "Connections (one thread each) that load the key space. Default: the processor count.")]
    public int? LoadThreads { get; set; }

    [Option("skipload", Default = false, HelpText = "Do not load the key space (it is already there, or the op does not need it).")]
    public bool SkipLoad { get; set; }

    [Option("batchsize", HelpText = "Commands per batch: the pipeline depth of each send. Default: 4096 offline, 1 online.")]
    public int? BatchSize { get; set; }

    [Option("itp", Default = 1, HelpText = "Batches in flight per client: send the next batch when fewer than this many wait for replies.")]
    public int Itp { get; set; } = 1;

    [Option("threads", Default = "1,2,4", HelpText = "Comma list of thread counts; one run per count, one connection per thread, e.g. 1,2,4.")]
    public string Threads { get; set; } = "1,2,4";

    [Option("clients", Default = 1, HelpText = "Online mode: connections per thread, each with its own key sequence; a thread with several waits for all of them at once (as memtier_benchmark's --clients and redis-benchmark's event loop), which costs the client less CPU per request than a thread per connection. Connections in all: threads x clients.")]
    public int Clients { get; set; } = 1;

    [Option("runtime", Default = 15, HelpText = "Seconds each run lasts (unless --totalops ends it first).")]
    public int Runtime { get; set; } = 15;

    [Option("totalops", Default = 0L, HelpText = "Stop each run after this many operations in all (0 = no limit; --runtime still applies).")]
    public long TotalOps { get; set; }

    [Option("zipf", Default = false, HelpText = "Choose keys from a Zipf distribution (a few hot keys) instead of uniformly.")]
    public bool Zipf { get; set; }

    [Option("zipf-skew", Default = 0.99, HelpText = "Zipf skew (theta), greater than 0 and less than 1; larger is more skewed.")]
    public double ZipfSkew { get; set; } = 0.99;

    [Option("seed", Default = 1L, HelpText = "Random seed of key choice and operation mix (each thread derives its own).")]
    public long Seed { get; set; } = 1;

    [Option("json", HelpText = "Also write the results as JSON to this file.")]
    public string? Json { get; set; }

    [Option("chart", HelpText = "Also draw the results as an SVG chart in this file (throughput per thread count; online mode: latency percentiles too). Open it in a browser.")]
    public string? Chart { get; set; }

    [Option("timeout", Default = 30000, HelpText = "Milliseconds to wait for replies (and for the TLS handshake) before giving up.")]
    public int Timeout { get; set; } = 30000;
}
