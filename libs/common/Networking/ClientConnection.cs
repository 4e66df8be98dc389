// ClientConnection: one TCP client, processed run-to-completion.
// Invariants:
//  - One receive loop per connection: receive, run every complete request, send all replies with one
//    send, repeat. Requests of one connection never run concurrently, and replies keep their order.
//  - No new bytes are read while replies are being sent, so a slow reader holds at most one flush
//    threshold of replies (plus one reply) in memory: back-pressure instead of an unbounded queue.
//  - The receive buffer grows and shrinks with what receives need (ReceiveBuffer), within the query buffer limit.
//  - Pushes (ISessionChannel.Push, from any thread) wait in a PushQueue bounded by RespLimits.Push. The send gate is
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
    private const int Idle = 0, Busy = 1, Closed = 2;

    private readonly Socket _socket;
    private readonly RespLimits _limits;
    private readonly ILogger? _logger;
    private readonly ReceiveBuffer _receive;
    private readonly InputBuffer _in;
    private readonly PushQueue _pushes;
    private int _state;
    private int _closeRequested;
    private long _bytesIn, _bytesOut;
    private readonly SemaphoreSlim _sendGate = new(1, 1);

    public ClientConnection(Socket socket, RespLimits limits, ILogger? logger)
    {
        _socket = socket;
        _limits = limits;
        _logger = logger;
        _receive = new ReceiveBuffer(limits);
        _in = _receive.Input;
        _pushes = new PushQueue(limits);
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
    public long PendingPushBytes => _pushes.Length;
    public bool CanFinishLater => true;

    /// <summary>True when the peer has closed its side (checked without reading: readable with nothing to read), for a
    /// connection whose requests are not being read now (a client blocked in a command).</summary>
    public bool PeerHasClosed => IsClosed || SocketPeer.HasClosed(_socket);

    private long _lastActivityMs = Environment.TickCount64;
    /// <summary>Last time bytes moved in either direction (for the idle timeout and CLIENT LIST idle=).</summary>
    public long LastActivityMs => Volatile.Read(ref _lastActivityMs);

    /// <summary>Runs the connection until the peer closes, the handler asks to close, or Close() is called.</summary>
    public async Task RunAsync(IRequestHandler handler)
    {
        try
        {
            _receive.RentInitial();
            while (true)
            {
                _receive.GrowToReceiveSize();
                if (!_receive.MakeRoom(handler.MinBytesHint))
                {
                    _logger?.LogWarning("Client {Remote} closed: query buffer of {Bytes} bytes reached client-query-buffer-limit", RemoteEndPoint, _in.Count);
                    break;
                }
                int space = _receive.Space;
                int n = await _socket.ReceiveAsync(_in.Data.AsMemory(_in.End, space), SocketFlags.None).ConfigureAwait(false);
                if (n <= 0) break;
                if (Interlocked.CompareExchange(ref _state, Busy, Idle) != Idle) break;
                await _sendGate.WaitAsync().ConfigureAwait(false);
                _receive.NoteReceive(n, space);
                Interlocked.Add(ref _bytesIn, n);
                Volatile.Write(ref _lastActivityMs, Environment.TickCount64);

                bool close = false;
                while (true)
                {
                    var result = handler.Process(_in);
                    var output = handler.Output;
                    long hardLimit = _limits.OutputBufferHardLimit;
                    if (hardLimit > 0 && output.TotalLength > hardLimit)
                    {
                        _logger?.LogWarning("Client {Remote} closed: reply of {Bytes} bytes is over client-output-buffer-limit", RemoteEndPoint, output.TotalLength);
                        close = true;
                        break;
                    }
                    var ready = handler.BeforeSendAsync();
                    // Until the handler has nothing left to wait for: a wake-up may only mean its work can go on here.
                    for (; !ready.IsCompletedSuccessfully; ready = handler.BeforeSendAsync())
                    {
                        if (output.Length == 0)
                        {
                            // Nothing of this batch is waiting (a blocking pop, SAVE, ... alone in its batch): pushes may
                            // go out while it waits, as they cannot overtake a reply.
                            _sendGate.Release();
                            if (_pushes.Length != 0 && _sendGate.Wait(0)) _ = SendPushesAndReleaseAsync();
                            try { await ready.ConfigureAwait(false); }
                            finally { await _sendGate.WaitAsync().ConfigureAwait(false); }
                        }
                        else await ready.ConfigureAwait(false);
                    }
                    for (int i = 0; i < output.SegmentCount; i++) await SendAsync(output.Segment(i)).ConfigureAwait(false);
                    output.Reset(releaseBuffer: true);
                    if (result == ProcessResult.Close) { close = true; break; }
                    if (result == ProcessResult.NeedMoreData) break;
                }
                if (close) _sendGate.Release();
                else if (_pushes.Length != 0) await SendPushesAndReleaseAsync().ConfigureAwait(false);
                else
                {
                    _sendGate.Release();
                    // a push that found the gate taken after the check above
                    if (_pushes.Length != 0 && _sendGate.Wait(0)) await SendPushesAndReleaseAsync().ConfigureAwait(false);
                }
                if (close) break;
                if (_in.Count == 0)
                {
                    _receive.ShrinkIdle();
                    handler.OnIdle();
                }
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
            _receive.Release();
            _pushes.Clear();
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
        if (_pushes.Add(message, out first)) return true;
        _logger?.LogWarning("Client {Remote} closed: {Bytes} bytes of pushed messages pending, over client-output-buffer-limit pubsub", RemoteEndPoint, PendingPushBytes);
        Close(force: true);
        return false;
    }

    public void SendPushes()
    {
        if (_pushes.Length != 0 && Volatile.Read(ref _state) != Closed && _sendGate.Wait(0)) _ = SendPushesAndReleaseAsync();
    }

    /// <summary>With the send gate held: sends pending pushes, releases the gate, and takes it again for pushes that came
    /// in meanwhile (their pusher found the gate taken).</summary>
    private async Task SendPushesAndReleaseAsync()
    {
        while (true)
        {
            try
            {
                while (_pushes.TryTake(out var chunk, out int length))
                {
                    try { await SendAsync(chunk.AsMemory(0, length)).ConfigureAwait(false); }
                    finally { LargeBuffers.Return(chunk); }
                }
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException) { Close(force: true); }
            finally { _sendGate.Release(); }
            if (_pushes.Length == 0 || Volatile.Read(ref _state) == Closed || !_sendGate.Wait(0)) return;
        }
    }

    public void DrainPushes(RespWriter replies) => _pushes.DrainTo(replies);

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
