// RespConnectionOptions: where and how a RespPipelineClient connects (address, TLS, credentials, protocol).
// Invariants: plain data, validated by RespTransport.Connect and RespPipelineClient.Connect; nothing here opens a
// socket.
namespace Garnet.client;

public sealed record RespConnectionOptions
{
    public string Host { get; init; } = "127.0.0.1";
    public int Port { get; init; } = 6379;
    /// <summary>Connect through this Unix domain socket path instead of Host:Port (null: TCP).</summary>
    public string? UnixSocket { get; init; }

    /// <summary>Connect with TLS (SslStream).</summary>
    public bool Tls { get; init; }

    /// <summary>Accept any server certificate (self-signed, wrong name). Only for tests and benchmarks.</summary>
    public bool TlsInsecure { get; init; }

    /// <summary>Name the server certificate must carry (and the SNI name sent); defaults to Host.</summary>
    public string? TlsServerName { get; init; }

    /// <summary>AUTH password; null sends no AUTH.</summary>
    public string? Password { get; init; }

    /// <summary>AUTH user name (Redis 6 ACL form "AUTH user password"); null uses the one-argument form.</summary>
    public string? User { get; init; }

    /// <summary>2 (default, no HELLO sent) or 3 (HELLO 3 after connecting).</summary>
    public int Protocol { get; init; } = 2;

    /// <summary>Bounds the TLS handshake, the AUTH/HELLO replies and each wait for replies (connecting itself uses the system's TCP timeout).</summary>
    public int TimeoutMs { get; init; } = 30_000;

    /// <summary>Size of the receive buffer. Bulk bodies are skipped, so this need not hold a whole value.</summary>
    public int ReceiveBufferSize { get; init; } = 128 * 1024;
}
