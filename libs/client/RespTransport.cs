// RespTransport: the byte pipe under a RespPipelineClient: a TCP socket, or an SslStream over one.
// Invariants:
// - One thread may Write while another Reads (a socket allows it; SslStream allows one read and one write at a
//   time). Two concurrent Writes, or two concurrent Reads, are not allowed.
// - Write sends every byte before returning, or fails once a send makes no progress for options.TimeoutMs.
//   Read returns 0 only when the peer has closed.
// - Blocking calls on a blocking socket: no allocation per call. Dispose closes the socket, which ends a Read
//   or Write that is waiting on another thread (with an exception).
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;

namespace Garnet.client;

public abstract class RespTransport : IDisposable
{
    public abstract int Read(Span<byte> buffer);
    public abstract void Write(ReadOnlySpan<byte> data);
    public abstract void Dispose();

    /// <summary>Makes a blocking Read fail (SocketException TimedOut, or an IOException wrapping it) after this long.</summary>
    public abstract void SetReceiveTimeout(int milliseconds);

    /// <summary>The socket under a plain transport, for a caller that waits for several connections at once
    /// (Socket.Select); null over TLS, whose stream may hold decrypted bytes the socket no longer signals.</summary>
    public virtual Socket? PlainSocket => null;

    /// <summary>Connects over TCP (or the Unix socket options.UnixSocket) and, with options.Tls, completes a TLS handshake.</summary>
    public static RespTransport Connect(RespConnectionOptions options)
    {
        bool unix = options.UnixSocket is not null;
        if (!unix)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(options.Port, 1);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(options.Port, 65535);
        }
        var socket = unix ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            // Synchronous calls only: an async call would switch the socket to non-blocking mode for good, and
            // .NET then emulates every later blocking Send/Receive with an allocation per wait.
            if (unix) socket.Connect(new UnixDomainSocketEndPoint(options.UnixSocket!));
            else socket.Connect(options.Host, options.Port);
            // A send that makes no progress for this long fails (the server stopped reading) instead of hanging.
            socket.SendTimeout = options.TimeoutMs;
            if (!options.Tls) return new SocketTransport(socket);

            var stream = new SslStream(new NetworkStream(socket, ownsSocket: true), leaveInnerStreamOpen: false);
            var auth = new SslClientAuthenticationOptions
            {
                TargetHost = options.TlsServerName ?? options.Host,
                EnabledSslProtocols = SslProtocols.None, // the system's defaults (TLS 1.2 and 1.3)
            };
            if (options.TlsInsecure) auth.RemoteCertificateValidationCallback = static (_, _, _, _) => true;
            try
            {
                socket.ReceiveTimeout = options.TimeoutMs;
                stream.AuthenticateAsClient(auth);
                socket.ReceiveTimeout = 0;
            }
            catch
            {
                stream.Dispose();
                throw;
            }
            return new SslTransport(stream, socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    private sealed class SocketTransport(Socket socket) : RespTransport
    {
        public override Socket? PlainSocket => socket;

        public override int Read(Span<byte> buffer) => socket.Receive(buffer, SocketFlags.None);

        public override void Write(ReadOnlySpan<byte> data)
        {
            while (!data.IsEmpty)
            {
                int n = socket.Send(data, SocketFlags.None);
                data = data.Slice(n);
            }
        }

        public override void SetReceiveTimeout(int milliseconds) => socket.ReceiveTimeout = milliseconds;

        public override void Dispose()
        {
            try { socket.Shutdown(SocketShutdown.Both); } catch (SocketException) { } catch (ObjectDisposedException) { }
            socket.Dispose();
        }
    }

    private sealed class SslTransport(SslStream stream, Socket socket) : RespTransport
    {
        public override void SetReceiveTimeout(int milliseconds) => socket.ReceiveTimeout = milliseconds;

        public override int Read(Span<byte> buffer) => stream.Read(buffer);
        public override void Write(ReadOnlySpan<byte> data) => stream.Write(data);
        public override void Dispose() => stream.Dispose();
    }
}
