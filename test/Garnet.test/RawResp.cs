// RawResp: a test connection that returns each reply as the exact bytes the server sent (one whole RESP2/RESP3 reply,
// framed by its lengths), to compare reply shapes and digits byte for byte; and RedisProcess, a redis-server of our own
// (Debian's, when installed) on a free port, stopped by its process id, to compare replies with Redis's.
using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using Garnet.client;

namespace Garnet.test;

public sealed class RawResp : IDisposable
{
    private readonly Socket _socket;
    private byte[] _buffer = new byte[64 * 1024];
    private int _start, _end;

    public RawResp(int port, int timeoutMs = 10000)
    {
        _socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = timeoutMs, SendTimeout = timeoutMs };
        _socket.Connect("127.0.0.1", port);
    }

    /// <summary>Sends a command and returns its reply's bytes.</summary>
    public byte[] Run(params object[] args)
    {
        _socket.Send(RespClient.Encode(args));
        // Keep what is buffered at the front, so the buffer only grows for a reply larger than it.
        _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
        _end -= _start;
        _start = 0;
        int begin = _start;
        int end = SkipReply(begin);
        var reply = _buffer.AsSpan(begin, end - begin).ToArray();
        _start = end;
        return reply;
    }

    /// <summary>Receives the next reply without sending anything (a MONITOR line, a push, a held reply).</summary>
    public byte[] Read()
    {
        _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
        _end -= _start;
        _start = 0;
        int end = SkipReply(0);
        var reply = _buffer.AsSpan(0, end).ToArray();
        _start = end;
        return reply;
    }

    public string ReadText() => Encoding.UTF8.GetString(Read());

    /// <summary>Sends a command without waiting for its reply.</summary>
    public void Send(params object[] args) => _socket.Send(RespClient.Encode(args));

    /// <summary>Sends raw protocol text (e.g. a pipeline of requests) without waiting for replies.</summary>
    public void SendRaw(string text) => _socket.Send(Encoding.ASCII.GetBytes(text));

    /// <summary>Whether reply bytes arrived (or arrive within waitMs) that were not read yet.</summary>
    public bool HasData(int waitMs = 0) => _end > _start || _socket.Poll(waitMs * 1000, SelectMode.SelectRead);

    /// <summary>The reply as text (RESP is ASCII apart from bulk contents), for messages and assertions.</summary>
    public string RunText(params object[] args) => Encoding.UTF8.GetString(Run(args));

    /// <summary>The end of the reply starting at pos, receiving more bytes as needed.</summary>
    private int SkipReply(int pos)
    {
        int lineEnd = LineEnd(pos);
        byte type = _buffer[pos];
        long n = type is (byte)'$' or (byte)'=' or (byte)'!' or (byte)'*' or (byte)'~' or (byte)'>' or (byte)'%' or (byte)'|'
            ? long.Parse(Encoding.ASCII.GetString(_buffer, pos + 1, lineEnd - pos - 1))
            : 0;
        int next = lineEnd + 2;
        switch (type)
        {
            case (byte)'$' or (byte)'=' or (byte)'!':
                if (n < 0) return next;
                Fill(next + (int)n + 2 - _start);
                return next + (int)n + 2;
            case (byte)'*' or (byte)'~' or (byte)'>':
                for (long i = 0; i < n; i++) next = SkipReply(next);
                return next;
            case (byte)'%' or (byte)'|':
                for (long i = 0; i < 2 * n; i++) next = SkipReply(next);
                return next;
            default:
                return next;
        }
    }

    private int LineEnd(int pos)
    {
        while (true)
        {
            int i = _buffer.AsSpan(pos, _end - pos).IndexOf("\r\n"u8);
            if (i >= 0) return pos + i;
            Fill(_end - _start + 1);
        }
    }

    /// <summary>Receives until at least count bytes from _start are buffered (positions stay valid: _start does not move).</summary>
    private void Fill(int count)
    {
        while (_end - _start < count)
        {
            if (_end == _buffer.Length) Array.Resize(ref _buffer, _buffer.Length * 2);
            int got = _socket.Receive(_buffer, _end, _buffer.Length - _end, SocketFlags.None);
            if (got == 0) throw new IOException("connection closed");
            _end += got;
        }
    }

    public void Dispose() => _socket.Dispose();
}

/// <summary>A redis-server process of our own on a free port (no persistence), killed by its id on Dispose. Constructing
/// one fails the test when redis-server is missing (RequiredTools).</summary>
public sealed class RedisProcess : IDisposable
{
    private readonly Process _process;
    public int Port { get; }
    private readonly string _dir;

    public RedisProcess(string extraArgs = "")
    {
        string executable = RequiredTools.RedisServer;
        _dir = Directory.CreateTempSubdirectory("garnet-test-redis-").FullName;
        Port = shared.TestPorts.Free();
        var psi = new ProcessStartInfo(executable, $"--port {Port} --bind 127.0.0.1 --save \"\" --appendonly no --dir {_dir} {extraArgs}")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        _process = Process.Start(psi)!;
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
        var sw = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                using var c = new RespClient("127.0.0.1", Port, 2000);
                if (c.Execute("PING").Text == "PONG") break;
            }
            catch (SocketException) { }
            if (_process.HasExited) throw new InvalidOperationException($"redis-server exited with code {_process.ExitCode}");
            if (sw.Elapsed > TimeSpan.FromSeconds(15)) throw new TimeoutException("redis-server did not start");
            Thread.Sleep(50);
        }
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(5000);
            }
        }
        finally
        {
            _process.Dispose();
            try { Directory.Delete(_dir, true); } catch (IOException) { }
        }
    }
}
