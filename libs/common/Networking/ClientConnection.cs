// ClientConnection: one TCP client, processed run-to-completion.
// Invariants:
//  - One receive loop per connection: receive, run every complete request, send all replies with one
//    send, repeat. Requests of one connection never run concurrently, and replies keep their order.
//  - No new bytes are read while replies are being sent, so a slow reader holds at most one flush
//    threshold of replies (plus one reply) in memory: back-pressure instead of an unbounded queue.
//  - The receive buffer starts at InitialReceiveSize and doubles only as request bytes actually arrive: when a request
//    needs more room, or when receives fill it (a pipelining client: up to PipelineReceiveSize, so a deep pipeline is
//    read, run and answered in a few large steps instead of one small receive and one send per 4 KB). It never holds
//    more than the query buffer limit, and shrinks back once the connection is idle and its receives have stayed
//    small (32 in a row under a quarter of the size halve it). Buffers above LargeBuffers.PoolLimit are not pooled:
//    they go back to LargeBuffers (a small cache, then MemoryReclaimer) when the connection goes idle or closes, also
//    when it closes in the middle of a large request. A rented buffer may be larger than asked for; only Capacity
//    bytes of it (the query buffer limit + 1) are ever used.
//  - Pushes (ISessionChannel.Push, from any thread) wait in a push buffer bounded by RespLimits.Push. The send gate is
//    held by the receive loop from a batch's first request until its replies are sent, and by whoever drains pushes:
//    so a push never lands inside a batch's replies, and a push to an idle connection is sent by the pushing thread.
//    Exception that keeps the rule: while a batch whose replies are all sent waits for deferred work (a blocking pop),
//    the loop lets the gate go, so pushes reach a blocked client. The session may move pending pushes into its replies
//    between two commands (DrainPushes, with the gate held).
//  - State moves Idle -> Busy -> Idle ... and finally Closed. A graceful Close() from another thread (shutdown)
//    never interrupts a batch half-way: a busy connection closes when its batch is done. A forced Close()
//    (CLIENT KILL, idle timeout, shutdown after its grace period) closes the socket at once.
using System.Net;
using System.Net.Sockets;
using Garnet.common.Resp;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking;

public sealed class ClientConnection : ISessionChannel
{
    public const int InitialReceiveSize = 4096;
    /// <summary>Largest receive buffer a pipelining client's full receives grow it to (larger requests grow it further).</summary>
    public const int PipelineReceiveSize = 128 * 1024;
    /// <summary>Receives in a row that bring less than a quarter of the receive size before it halves.</summary>
    private const int SmallReceivesBeforeShrink = 32;
    private const int Idle = 0, Busy = 1, Closed = 2;

    private readonly Socket _socket;
    private readonly RespLimits _limits;
    private readonly ILogger? _logger;
    private readonly InputBuffer _in = new();
    private IRequestHandler _handler = null!;
    private int _state;
    private int _receiveSize = InitialReceiveSize; // what receives have lately needed (see the file comment)
    private int _smallReceives;
    private int _closeRequested;
    private long _bytesIn, _bytesOut;
    private readonly SemaphoreSlim _sendGate = new(1, 1);
    private readonly object _pushLock = new();
    private byte[] _pushBuffer = Array.Empty<byte>();
    private int _pushLength;
    private long _pushOverSoftSinceMs;

    public ClientConnection(Socket socket, RespLimits limits, ILogger? logger)
    {
        _socket = socket;
        _limits = limits;
        _logger = logger;
        RemoteEndPoint = socket.RemoteEndPoint as IPEndPoint;
        LocalEndPoint = socket.LocalEndPoint as IPEndPoint;
        Handle = (long)socket.Handle;
    }

    public IPEndPoint? RemoteEndPoint { get; }
    public IPEndPoint? LocalEndPoint { get; }
    public string? UnixSocketPath { get; init; }
    public long Handle { get; }
    public long BytesIn => Interlocked.Read(ref _bytesIn);
    public long BytesOut => Interlocked.Read(ref _bytesOut);
    /// <summary>Unprocessed bytes held for this client (qbuf in CLIENT LIST).</summary>
    public int QueryBufferLength => _in.Count;
    public int QueryBufferCapacity => _in.Data.Length;
    public bool IsClosed => Volatile.Read(ref _state) == Closed;
    public long PendingPushBytes => Volatile.Read(ref _pushLength);

    /// <summary>True when the peer has closed its side (checked without reading: readable with nothing to read), for a
    /// connection whose requests are not being read now (a client blocked in a command).</summary>
    public bool PeerHasClosed
    {
        get
        {
            if (IsClosed) return true;
            try { return _socket.Poll(0, SelectMode.SelectRead) && _socket.Available == 0; }
            catch (ObjectDisposedException) { return true; }
            catch (SocketException) { return true; }
            catch (NotSupportedException) { return false; }
        }
    }

    private long _lastActivityMs = Environment.TickCount64;
    /// <summary>Last time bytes moved in either direction (for the idle timeout and CLIENT LIST idle=).</summary>
    public long LastActivityMs => Volatile.Read(ref _lastActivityMs);

    /// <summary>Runs the connection until the peer closes, the handler asks to close, or Close() is called.</summary>
    public async Task RunAsync(IRequestHandler handler)
    {
        _handler = handler;
        try
        {
            _in.Data = LargeBuffers.Rent(InitialReceiveSize);
            while (true)
            {
                GrowToReceiveSize();
                if (!MakeRoom()) break;
                int space = Capacity - _in.End;
                int n = await _socket.ReceiveAsync(_in.Data.AsMemory(_in.End, space), SocketFlags.None).ConfigureAwait(false);
                if (n <= 0) break;
                NoteReceive(n, space);
                if (Interlocked.CompareExchange(ref _state, Busy, Idle) != Idle) break;
                await _sendGate.WaitAsync().ConfigureAwait(false);
                _in.End += n;
                Interlocked.Add(ref _bytesIn, n);
                Volatile.Write(ref _lastActivityMs, Environment.TickCount64);

                bool close = false;
                while (true)
                {
                    var result = handler.Process(_in);
                    var output = handler.Output;
                    long hardLimit = _limits.OutputBufferHardLimit;
                    if (hardLimit > 0 && output.Length > hardLimit)
                    {
                        _logger?.LogWarning("Client {Remote} closed: reply of {Bytes} bytes is over client-output-buffer-limit", RemoteEndPoint, output.Length);
                        close = true;
                        break;
                    }
                    var ready = handler.BeforeSendAsync();
                    if (!ready.IsCompletedSuccessfully)
                    {
                        if (output.Length == 0)
                        {
                            // Nothing of this batch is waiting (a blocking pop, SAVE, ... alone in its batch): pushes may
                            // go out while it waits, as they cannot overtake a reply.
                            _sendGate.Release();
                            if (Volatile.Read(ref _pushLength) != 0 && _sendGate.Wait(0)) _ = SendPushesAndReleaseAsync();
                            try { await ready.ConfigureAwait(false); }
                            finally { await _sendGate.WaitAsync().ConfigureAwait(false); }
                        }
                        else await ready.ConfigureAwait(false);
                    }
                    if (output.Length > 0) await SendAsync(output.Written).ConfigureAwait(false);
                    output.Reset(releaseBuffer: true);
                    if (result == ProcessResult.Close) { close = true; break; }
                    if (result == ProcessResult.NeedMoreData) break;
                }
                if (close) _sendGate.Release();
                else if (Volatile.Read(ref _pushLength) != 0) await SendPushesAndReleaseAsync().ConfigureAwait(false);
                else
                {
                    _sendGate.Release();
                    // a push that found the gate taken after the check above
                    if (Volatile.Read(ref _pushLength) != 0 && _sendGate.Wait(0)) await SendPushesAndReleaseAsync().ConfigureAwait(false);
                }
                if (close) break;
                if (_in.Count == 0) ShrinkIdle();
                if (Interlocked.CompareExchange(ref _state, Idle, Busy) != Busy || Volatile.Read(ref _closeRequested) != 0) break;
            }
        }
        catch (SocketException) { }
        catch (ObjectDisposedException) { }
        catch (Exception ex)
        {
            _logger?.LogError(ex, "Connection {Remote} failed", RemoteEndPoint);
        }
        finally
        {
            Volatile.Write(ref _state, Closed);
            try { _socket.Shutdown(SocketShutdown.Both); } catch { }
            _socket.Dispose();
            handler.Output.Reset(releaseBuffer: true);
            LargeBuffers.Return(_in.Data);
            _in.Data = Array.Empty<byte>();
            _in.Start = _in.End = 0;
            DropPushes();
            handler.OnClosed();
        }
    }

    private async ValueTask SendAsync(ReadOnlyMemory<byte> data)
    {
        while (!data.IsEmpty)
        {
            int sent = await _socket.SendAsync(data, SocketFlags.None).ConfigureAwait(false);
            if (sent <= 0) throw new SocketException((int)SocketError.ConnectionReset);
            Interlocked.Add(ref _bytesOut, sent);
            Volatile.Write(ref _lastActivityMs, Environment.TickCount64);
            data = data.Slice(sent);
        }
    }

    public bool Push(ReadOnlySpan<byte> message)
    {
        if (!Queue(message, out _)) return false;
        if (_sendGate.Wait(0)) _ = SendPushesAndReleaseAsync();
        return true;
    }

    public bool PushDeferred(ReadOnlySpan<byte> message, out bool mustSend) => Queue(message, out mustSend);

    /// <summary>Adds message to the pending pushes (first: there were none); false when closed or now over the limits.</summary>
    private bool Queue(ReadOnlySpan<byte> message, out bool first)
    {
        first = false;
        if (Volatile.Read(ref _state) == Closed || Volatile.Read(ref _closeRequested) != 0) return false;
        bool overLimit;
        lock (_pushLock)
        {
            first = _pushLength == 0;
            int needed = _pushLength + message.Length;
            if (needed > _pushBuffer.Length)
            {
                var nb = LargeBuffers.Rent(Math.Max(needed, Math.Max(256, _pushBuffer.Length * 2)));
                _pushBuffer.AsSpan(0, _pushLength).CopyTo(nb);
                LargeBuffers.Return(_pushBuffer);
                _pushBuffer = nb;
            }
            message.CopyTo(_pushBuffer.AsSpan(_pushLength));
            Volatile.Write(ref _pushLength, needed);
            overLimit = _limits.Push.Exceeded(needed, ref _pushOverSoftSinceMs, Environment.TickCount64);
        }
        if (overLimit)
        {
            _logger?.LogWarning("Client {Remote} closed: {Bytes} bytes of pushed messages pending, over client-output-buffer-limit pubsub", RemoteEndPoint, PendingPushBytes);
            Close(force: true);
            return false;
        }
        return true;
    }

    public void SendPushes()
    {
        if (Volatile.Read(ref _pushLength) != 0 && Volatile.Read(ref _state) != Closed && _sendGate.Wait(0)) _ = SendPushesAndReleaseAsync();
    }

    /// <summary>With the send gate held: sends pending pushes, releases the gate, and takes it again for pushes that came
    /// in meanwhile (their pusher found the gate taken).</summary>
    private async Task SendPushesAndReleaseAsync()
    {
        while (true)
        {
            try
            {
                while (true)
                {
                    byte[] chunk;
                    int length;
                    lock (_pushLock)
                    {
                        if (_pushLength == 0) break;
                        chunk = _pushBuffer;
                        length = _pushLength;
                        _pushBuffer = Array.Empty<byte>();
                        Volatile.Write(ref _pushLength, 0);
                        _pushOverSoftSinceMs = 0;
                    }
                    try { await SendAsync(chunk.AsMemory(0, length)).ConfigureAwait(false); }
                    finally { LargeBuffers.Return(chunk); }
                }
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException) { Close(force: true); }
            finally { _sendGate.Release(); }
            if (Volatile.Read(ref _pushLength) == 0 || Volatile.Read(ref _state) == Closed || !_sendGate.Wait(0)) return;
        }
    }

    public void DrainPushes(RespWriter replies)
    {
        if (Volatile.Read(ref _pushLength) == 0) return;
        lock (_pushLock)
        {
            if (_pushLength == 0) return;
            replies.WriteRaw(_pushBuffer.AsSpan(0, _pushLength));
            LargeBuffers.Return(_pushBuffer);
            _pushBuffer = Array.Empty<byte>();
            Volatile.Write(ref _pushLength, 0);
            _pushOverSoftSinceMs = 0;
        }
    }

    private void DropPushes()
    {
        lock (_pushLock)
        {
            LargeBuffers.Return(_pushBuffer);
            _pushBuffer = Array.Empty<byte>();
            Volatile.Write(ref _pushLength, 0);
        }
    }

    /// <summary>Makes free space at the end of the receive buffer. False when the query buffer limit is passed.</summary>
    /// <summary>Usable bytes of the receive buffer: a rented buffer may be larger than the limits allow.</summary>
    private int Capacity => (int)Math.Min(_in.Data.Length, MaxBuffer);

    /// <summary>The most a receive buffer may hold: the query buffer limit + 1, within the absolute bound.</summary>
    private long MaxBuffer => Math.Min(_limits.QueryBufferLimit + 1, RespLimits.AbsoluteMaxBuffer);

    private bool MakeRoom()
    {
        if (_in.End < Capacity) return true;
        int count = _in.Count;
        if (count >= _limits.QueryBufferLimit)
        {
            _logger?.LogWarning("Client {Remote} closed: query buffer of {Bytes} bytes reached client-query-buffer-limit", RemoteEndPoint, count);
            return false;
        }
        long hint = _handler.MinBytesHint;
        if (_in.Start > 0 && count < Capacity / 2 && hint <= Capacity)
        {
            _in.Data.AsSpan(_in.Start, count).CopyTo(_in.Data);
            _in.Start = 0;
            _in.End = count;
            return true;
        }
        // Double, but never beyond what the pending request needs (when known) or the limits allow.
        long size = (long)Capacity * 2;
        if (hint > count && hint < size) size = Math.Max(hint, count + 1);
        size = Math.Min(size, MaxBuffer);
        if (size <= count) return false;
        MoveUnreadTo((int)size);
        return true;
    }

    /// <summary>Moves the unread bytes to the front of a new buffer of at least size bytes.</summary>
    private void MoveUnreadTo(int size)
    {
        int count = _in.Count;
        var nb = LargeBuffers.Rent(size);
        _in.Data.AsSpan(_in.Start, count).CopyTo(nb);
        LargeBuffers.Return(_in.Data);
        _in.Data = nb;
        _in.Start = 0;
        _in.End = count;
    }

    /// <summary>A receive that filled its space doubles the receive size (more bytes were waiting); a long run of small
    /// receives halves it.</summary>
    private void NoteReceive(int received, int space)
    {
        if (received == space && _receiveSize < PipelineReceiveSize)
        {
            _receiveSize *= 2;
            _smallReceives = 0;
        }
        else if (received < _receiveSize / 4 && _receiveSize > InitialReceiveSize)
        {
            if (++_smallReceives < SmallReceivesBeforeShrink) return;
            _receiveSize /= 2;
            _smallReceives = 0;
        }
        else _smallReceives = 0;
    }

    /// <summary>Makes the receive buffer at least the receive size (within the query buffer limit), keeping unread bytes.</summary>
    private void GrowToReceiveSize()
    {
        int size = (int)Math.Min(_receiveSize, MaxBuffer);
        if (_in.Data.Length < size) MoveUnreadTo(size);
    }

    private void ShrinkIdle()
    {
        _in.Start = _in.End = 0;
        _handler.OnIdle();
        if (_in.Data.Length > Math.Max(_receiveSize, InitialReceiveSize * 4))
        {
            LargeBuffers.Return(_in.Data);
            _in.Data = LargeBuffers.Rent(_receiveSize);
        }
    }

    /// <summary>
    /// Closes the connection from any thread. Graceful: a batch in progress completes (and its replies are sent)
    /// first. Forced: the socket is closed now, which also ends a send stuck on a client that stopped reading.
    /// </summary>
    public void Close(bool force = false)
    {
        Volatile.Write(ref _closeRequested, 1);
        if (force || Interlocked.CompareExchange(ref _state, Closed, Idle) == Idle)
        {
            try { _socket.Shutdown(SocketShutdown.Both); } catch { }
            try { _socket.Dispose(); } catch { }
        }
    }
}
