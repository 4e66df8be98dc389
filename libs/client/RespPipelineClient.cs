// RespPipelineClient: a lean pipelining RESP client. The caller writes whole batches of pre-encoded commands;
// the replies are received and counted with a RespReplyScanner, never materialized.
// Two ways to receive:
// - Reader thread (default): a thread owned by the client is the only one that receives, so a send that blocks
//   (the server is busy writing replies and reads no more) can never deadlock against an unread receive buffer.
//   Needed whenever a batch and its replies may not fit in the kernel's socket buffers.
// - Synchronous (dedicatedReader: false): WaitForReplies receives on the calling thread. No thread hand-off per
//   batch (much faster at pipeline depth 1), but only safe when the requests in flight and their replies fit in
//   the socket buffers (tens of KB), because nothing reads while a send blocks.
// Invariants:
// - One sender thread at a time calls Send/Execute/WaitForReplies.
// - Sent is raised before the bytes go out, so every reply the reader sees has a request counted; a reply
//   beyond Sent is a protocol fault.
// - Counters (Replies, ErrorReplies, NullReplies) are published once per receive, after the observer has seen
//   every reply in it. WaitForReplies returns once the published count reaches its target, throws the reader's
//   fault if the connection failed, and throws TimeoutException after options.TimeoutMs without progress.
// - No allocation per batch or per reply on either thread once buffers are warm (blocking socket calls, a
//   Monitor wait only when replies are not there yet). Over TLS, SslStream itself allocates a little per call.
using System.Diagnostics;

namespace Garnet.client;

public sealed class RespPipelineClient : IDisposable
{
    private readonly RespTransport _transport;
    private readonly RespReplyScanner _scanner = new();
    private readonly IReplyObserver? _observer;
    private readonly int _timeoutMs;
    private readonly object _gate = new();
    private byte[] _buffer;
    private int _start, _end;
    private Thread? _reader;

    private long _sent;
    private long _replies, _errorReplies, _nullReplies;
    private long _waitTarget = long.MaxValue;
    private long _readerAllocated;
    private volatile Exception? _fault;
    private volatile bool _disposed;

    private RespPipelineClient(RespTransport transport, RespConnectionOptions options, IReplyObserver? observer)
    {
        _transport = transport;
        _observer = observer;
        _timeoutMs = options.TimeoutMs;
        _buffer = new byte[Math.Max(1024, options.ReceiveBufferSize)];
    }

    /// <summary>Connects, sends AUTH and HELLO as the options ask, then starts the reader thread (if dedicated).</summary>
    public static RespPipelineClient Connect(RespConnectionOptions options, IReplyObserver? observer = null, bool dedicatedReader = true)
    {
        if (options.Protocol is not (2 or 3)) throw new ArgumentException("protocol must be 2 or 3", nameof(options));
        var transport = RespTransport.Connect(options);
        var client = new RespPipelineClient(transport, options, observer);
        try
        {
            transport.SetReceiveTimeout(options.TimeoutMs);
            try
            {
                client.Handshake(options);
            }
            catch (Exception ex) when (IsTimeout(ex))
            {
                throw new TimeoutException($"no reply to AUTH/HELLO within {options.TimeoutMs} ms", ex);
            }
            if (dedicatedReader)
            {
                transport.SetReceiveTimeout(0);
                client.StartReader();
            }
            return client;
        }
        catch
        {
            client.Dispose();
            throw;
        }
    }

    /// <summary>Commands sent so far (the replies expected).</summary>
    public long Sent => Volatile.Read(ref _sent);
    public long Replies => Volatile.Read(ref _replies);
    public long ErrorReplies => Volatile.Read(ref _errorReplies);
    public long NullReplies => Volatile.Read(ref _nullReplies);

    /// <summary>Text of the first error reply on this connection, or null.</summary>
    public string? FirstError { get; private set; }

    /// <summary>Bytes the reader thread has allocated since it started (GC.GetAllocatedBytesForCurrentThread); 0 when
    /// replies are received on the caller's thread (its own allocation count then includes them).</summary>
    public long ReaderAllocatedBytes => Volatile.Read(ref _readerAllocated);

    /// <summary>True when a reader thread receives; false when WaitForReplies receives on the caller's thread.</summary>
    public bool HasReaderThread => _reader is not null;

    /// <summary>The connection's failure (server closed, malformed reply, more replies than requests), or null.</summary>
    public Exception? Fault => _fault;

    /// <summary>Writes <paramref name="commands"/> whole commands, already encoded, in one write.</summary>
    public void Send(ReadOnlySpan<byte> batch, int commands)
    {
        ThrowIfFaulted();
        Volatile.Write(ref _sent, _sent + commands);
        try
        {
            _transport.Write(batch);
        }
        catch (Exception ex) when (_fault is not null)
        {
            throw new IOException("connection failed: " + _fault.Message, ex);
        }
    }

    /// <summary>Sends a batch and waits for all replies outstanding on this connection.</summary>
    public void Execute(ReadOnlySpan<byte> batch, int commands)
    {
        Send(batch, commands);
        WaitForReplies(Sent);
    }

    /// <summary>For a caller that waits for several connections on one thread: the socket to watch (Socket.Select), or
    /// null when this client has a reader thread or runs over TLS.</summary>
    public System.Net.Sockets.Socket? PollSocket => _reader is null ? _transport.PlainSocket : null;

    /// <summary>Without a reader thread: one receive on the calling thread (it blocks until bytes arrive, so call it when
    /// PollSocket is readable), then the replies in it are counted and observed.</summary>
    public void ReceiveReady()
    {
        if (_reader is not null) throw new InvalidOperationException("this client receives on its reader thread");
        ThrowIfFaulted();
        try
        {
            ReceiveOnce();
        }
        catch (Exception ex) when (ex is not ObjectDisposedException)
        {
            _fault = ex;
            throw;
        }
    }

    /// <summary>Blocks until at least <paramref name="target"/> replies have arrived on this connection.</summary>
    public void WaitForReplies(long target)
    {
        if (Volatile.Read(ref _replies) >= target) return;
        if (_reader is null)
        {
            ReceiveOnCallerThread(target);
            return;
        }
        lock (_gate)
        {
            long seen = Volatile.Read(ref _replies);
            long deadline = Environment.TickCount64 + _timeoutMs;
            // Full fence between publishing the target and reading the count (the reader does the mirror image).
            Interlocked.Exchange(ref _waitTarget, target);
            try
            {
                while (true)
                {
                    long now = Volatile.Read(ref _replies);
                    if (now >= target) return;
                    ThrowIfFaulted();
                    if (now != seen) { seen = now; deadline = Environment.TickCount64 + _timeoutMs; }
                    long left = deadline - Environment.TickCount64;
                    if (left <= 0)
                        throw new TimeoutException($"no reply for {_timeoutMs} ms: {target - now} of {target} replies still missing");
                    Monitor.Wait(_gate, (int)Math.Min(left, int.MaxValue));
                }
            }
            finally
            {
                Volatile.Write(ref _waitTarget, long.MaxValue);
            }
        }
    }

    private void ThrowIfFaulted()
    {
        var fault = _fault;
        if (fault is not null) throw new IOException("connection failed: " + fault.Message, fault);
        ObjectDisposedException.ThrowIf(_disposed, this);
    }

    private void Handshake(RespConnectionOptions options)
    {
        var writer = new RespCommandWriter(256);
        if (options.Password is not null)
        {
            writer.BeginCommand(options.User is null ? 2 : 3);
            writer.WriteArg("AUTH"u8);
            if (options.User is not null) writer.WriteArg(System.Text.Encoding.UTF8.GetBytes(options.User));
            writer.WriteArg(System.Text.Encoding.UTF8.GetBytes(options.Password));
            RoundTrip(writer, "AUTH");
        }
        if (options.Protocol == 3)
        {
            writer.Reset();
            writer.WriteCommand("HELLO"u8, "3"u8);
            RoundTrip(writer, "HELLO 3");
        }
    }

    /// <summary>Before the reader starts: sends one command and reads its reply on this thread.</summary>
    private void RoundTrip(RespCommandWriter writer, string what)
    {
        _transport.Write(writer.Written);
        var scanner = new RespReplyScanner();
        long deadline = Environment.TickCount64 + _timeoutMs;
        while (scanner.Replies == 0)
        {
            if (_start < _end)
            {
                _start += scanner.Scan(_buffer.AsSpan(_start, _end - _start), 1);
                if (scanner.Replies > 0) break;
            }
            Compact();
            if (Environment.TickCount64 > deadline) throw new TimeoutException($"no reply to {what} within {_timeoutMs} ms");
            int n = _transport.Read(_buffer.AsSpan(_end));
            if (n == 0) throw new IOException($"connection closed by the server during {what}");
            _end += n;
        }
        if (scanner.ErrorReplies > 0) throw new IOException($"{what} failed: {scanner.FirstError}");
    }

    private void StartReader()
    {
        _reader = new Thread(ReadLoop) { IsBackground = true, Name = "resp-reader" };
        _reader.Start();
    }

    private void ReceiveOnCallerThread(long target)
    {
        ThrowIfFaulted();
        try
        {
            while (_scanner.Replies < target) ReceiveOnce();
        }
        catch (Exception ex) when (IsTimeout(ex))
        {
            _fault = new TimeoutException($"no reply for {_timeoutMs} ms: {target - _scanner.Replies} of {target} replies still missing", ex);
            throw _fault;
        }
        catch (Exception ex) when (ex is not ObjectDisposedException)
        {
            _fault = ex;
            throw;
        }
    }

    private static bool IsTimeout(Exception ex) =>
        (ex as System.Net.Sockets.SocketException ?? ex.InnerException as System.Net.Sockets.SocketException)?.SocketErrorCode
            == System.Net.Sockets.SocketError.TimedOut;

    private void ReadLoop()
    {
        long allocatedAtStart = GC.GetAllocatedBytesForCurrentThread();
        try
        {
            while (true)
            {
                ReceiveOnce();
                Volatile.Write(ref _readerAllocated, GC.GetAllocatedBytesForCurrentThread() - allocatedAtStart);
            }
        }
        catch (Exception ex)
        {
            if (!_disposed) _fault = ex;
            else _fault ??= new ObjectDisposedException(nameof(RespPipelineClient));
            lock (_gate) Monitor.PulseAll(_gate);
        }
    }

    /// <summary>One receive: reads what is there (blocking until something is), scans it, publishes the counts.</summary>
    private void ReceiveOnce()
    {
        Compact();
        int n = _transport.Read(_buffer.AsSpan(_end));
        if (n == 0) throw new IOException("connection closed by the server");
        _end += n;
        long timestamp = Stopwatch.GetTimestamp();
        var data = _buffer.AsSpan(_start, _end - _start);
        if (_observer is null)
        {
            _start += _scanner.Scan(data);
        }
        else
        {
            int pos = 0;
            while (true)
            {
                long before = _scanner.Replies;
                pos += _scanner.Scan(data.Slice(pos), 1);
                if (_scanner.Replies == before) break;
                _observer.OnReply(before, _scanner.LastReplyWasError, timestamp);
            }
            _start += pos;
        }
        Publish();
    }

    private void Publish()
    {
        long replies = _scanner.Replies;
        if (replies > Volatile.Read(ref _sent))
            throw new InvalidDataException($"the server sent {replies} replies for {Volatile.Read(ref _sent)} requests");
        if (_scanner.ErrorReplies != _errorReplies)
        {
            FirstError ??= _scanner.FirstError;
            Volatile.Write(ref _errorReplies, _scanner.ErrorReplies);
        }
        Volatile.Write(ref _nullReplies, _scanner.NullReplies);
        // Full fence between publishing the count and reading the waiter's target (see WaitForReplies).
        Interlocked.Exchange(ref _replies, replies);
        if (Volatile.Read(ref _waitTarget) <= replies)
            lock (_gate) Monitor.PulseAll(_gate);
    }

    /// <summary>Moves unconsumed bytes (at most an unfinished line) to the front; grows the buffer if a line fills it.</summary>
    private void Compact()
    {
        if (_start == _end)
        {
            _start = _end = 0;
            return;
        }
        if (_start > 0)
        {
            Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
            _end -= _start;
            _start = 0;
        }
        if (_end == _buffer.Length)
        {
            if (_buffer.Length > RespReplyScanner.MaxLineLength) throw new InvalidDataException("RESP reply line too long");
            Array.Resize(ref _buffer, _buffer.Length * 2);
        }
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _transport.Dispose();
        if (_reader is not null && _reader != Thread.CurrentThread) _reader.Join(5000);
    }
}
