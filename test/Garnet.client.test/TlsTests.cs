// --tls: our server has no TLS, so the test puts a TLS-terminating proxy (SslStream, self-signed certificate) in
// front of it and runs Resp.benchmark through it, with and without --tls-insecure.
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Garnet.client.test;

/// <summary>A self-signed certificate for "localhost", with its PEM files for servers that want them.</summary>
public static class SelfSigned
{
    public static X509Certificate2 Create()
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var san = new SubjectAlternativeNameBuilder();
        san.AddDnsName("localhost");
        san.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(san.Build());
        using var cert = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(7));
        return X509CertificateLoader.LoadPkcs12(cert.Export(X509ContentType.Pkcs12), null);
    }

    /// <summary>Writes cert.pem and key.pem into <paramref name="dir"/>.</summary>
    public static (string Cert, string Key) WritePem(X509Certificate2 cert, string dir)
    {
        string certPath = Path.Combine(dir, "cert.pem"), keyPath = Path.Combine(dir, "key.pem");
        File.WriteAllText(certPath, cert.ExportCertificatePem());
        using var rsa = cert.GetRSAPrivateKey()!;
        File.WriteAllText(keyPath, rsa.ExportPkcs8PrivateKeyPem());
        return (certPath, keyPath);
    }
}

/// <summary>Accepts TLS connections and relays their plain bytes to a backend port.</summary>
public sealed class TlsProxy : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly X509Certificate2 _cert;
    private readonly int _backend;
    private readonly CancellationTokenSource _stop = new();
    private int _handshakes;

    public TlsProxy(X509Certificate2 cert, int backendPort)
    {
        _cert = cert;
        _backend = backendPort;
        _listener.Start();
        _ = Task.Run(AcceptLoop);
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;
    public int Handshakes => Volatile.Read(ref _handshakes);

    private async Task AcceptLoop()
    {
        while (!_stop.IsCancellationRequested)
        {
            TcpClient client;
            try { client = await _listener.AcceptTcpClientAsync(_stop.Token); }
            catch (Exception) { return; }
            _ = Task.Run(() => Relay(client));
        }
    }

    private async Task Relay(TcpClient client)
    {
        using (client)
        using (var ssl = new SslStream(client.GetStream()))
        {
            try
            {
                await ssl.AuthenticateAsServerAsync(_cert, clientCertificateRequired: false, checkCertificateRevocation: false);
                Interlocked.Increment(ref _handshakes);
                using var backend = new TcpClient();
                await backend.ConnectAsync(IPAddress.Loopback, _backend);
                var plain = backend.GetStream();
                var up = ssl.CopyToAsync(plain, _stop.Token);
                var down = plain.CopyToAsync(ssl, _stop.Token);
                await Task.WhenAny(up, down);
            }
            catch (Exception)
            {
                // A client that refuses our certificate, or a closed connection: nothing to relay.
            }
        }
    }

    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
    }
}

[TestFixture]
public class TlsTests
{
    [Test]
    public void OfflineAndOnlineRunsOverTls()
    {
        using var server = new InProcessServer();
        using var cert = SelfSigned.Create();
        using var proxy = new TlsProxy(cert, server.Port);

        var offline = BenchmarkRun.Start("--port", proxy.Port.ToString(), "--tls", "--tls-insecure", "--op", "SET",
            "--dbsize", "300", "--batchsize", "256", "--threads", "2", "--totalops", "5000");
        Assert.That(offline.ExitCode, Is.EqualTo(0), offline.Errors);
        Assert.That(offline.Long(0, "ops"), Is.EqualTo(5000));
        Assert.That(offline.Long(0, "errors"), Is.EqualTo(0));
        Assert.That(offline.Json.GetProperty("settings").GetProperty("tls").GetBoolean(), Is.True);
        Assert.That(offline.Output, Does.Contain("(TLS)"));

        var online = BenchmarkRun.Start("--port", proxy.Port.ToString(), "--tls", "--tls-insecure", "--online",
            "--op-workload", "GET,SET", "--op-percent", "80,20", "--dbsize", "300", "--threads", "1", "--totalops", "2000", "--skipload");
        Assert.That(online.ExitCode, Is.EqualTo(0), online.Errors);
        Assert.That(online.Long(0, "ops"), Is.EqualTo(2000));
        Assert.That(online.Long(0, "errors"), Is.EqualTo(0));

        using var c = server.Client();
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(300), "the keys went through the proxy to the server");
        Assert.That(proxy.Handshakes, Is.GreaterThanOrEqualTo(4));
    }

    [Test]
    public void SelfSignedCertificateIsRefusedWithoutTlsInsecure()
    {
        using var server = new InProcessServer();
        using var cert = SelfSigned.Create();
        using var proxy = new TlsProxy(cert, server.Port);
        var run = BenchmarkRun.Start("--port", proxy.Port.ToString(), "--tls", "--op", "PING", "--threads", "1", "--totalops", "10");
        Assert.That(run.ExitCode, Is.EqualTo(2));
        Assert.That(run.Errors, Does.Contain("error: ").And.Contain("certificate").IgnoreCase);
    }
}
