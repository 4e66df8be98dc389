// RespClient: a small synchronous RESP client over one TCP connection: send commands (or raw bytes),
// read whole replies. Used by tests and tools; the benchmark's pipelining client builds on the same parser.
using System.Net.Sockets;
using System.Text;

namespace Garnet.client;

public sealed class RespClient : IDisposable
{
    private readonly Socket _socket;
    private byte[] _buffer = new byte[64 * 1024];
    private int _start, _end;

    public RespClient(string host, int port, int timeoutMs = 10000)
    {
        _socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = timeoutMs, SendTimeout = timeoutMs };
        _socket.Connect(host, port);
    }

    public Socket Socket => _socket;

    /// <summary>Encodes a command as a RESP array of bulk strings.</summary>
    public static byte[] Encode(params object[] args)
    {
        var ms = new MemoryStream();
        void W(string s) { var b = Encoding.UTF8.GetBytes(s); ms.Write(b); }
        W($"*{args.Length}\r\n");
        foreach (var a in args)
        {
            byte[] b = a as byte[] ?? Encoding.UTF8.GetBytes(Convert.ToString(a, System.Globalization.CultureInfo.InvariantCulture) ?? "");
            W($"${b.Length}\r\n");
            ms.Write(b);
            W("\r\n");
        }
        return ms.ToArray();
    }

    public void SendRaw(ReadOnlySpan<byte> bytes)
    {
        while (!bytes.IsEmpty)
        {
            int n = _socket.Send(bytes);
            bytes = bytes.Slice(n);
        }
    }

    public void Send(params object[] args) => SendRaw(Encode(args));

    /// <summary>Sends a command and reads its reply.</summary>
    public RespValue Execute(params object[] args)
    {
        Send(args);
        return Read();
    }

    /// <summary>Reads one whole reply; throws IOException if the server closes first.</summary>
    public RespValue Read()
    {
        while (true)
        {
            if (_end > _start && RespReplyParser.TryParse(_buffer.AsSpan(_start, _end - _start), out var value, out int used))
            {
                _start += used;
                return value!;
            }
            if (_start > 0)
            {
                Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
                _end -= _start;
                _start = 0;
            }
            if (_end == _buffer.Length) Array.Resize(ref _buffer, _buffer.Length * 2);
            int n = _socket.Receive(_buffer, _end, _buffer.Length - _end, SocketFlags.None);
            if (n == 0) throw new IOException("connection closed by server");
            _end += n;
        }
    }

    /// <summary>True when the server has closed the connection (reads until EOF, bounded by the timeout).</summary>
    public bool IsClosedByServer()
    {
        try
        {
            var tmp = new byte[4096];
            while (true)
            {
                int n = _socket.Receive(tmp);
                if (n == 0) return true;
            }
        }
        catch (SocketException ex) when (ex.SocketErrorCode == SocketError.TimedOut || ex.SocketErrorCode == SocketError.WouldBlock) { return false; }
        catch (SocketException) { return true; }
    }

    public void Dispose() => _socket.Dispose();
}
