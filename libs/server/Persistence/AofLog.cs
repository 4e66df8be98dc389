// AofLog: the append-only file. Write commands are appended (as RESP, with SELECT when the database changes) by the
// connection that ran them, while it still holds the command's key locks, so the log has each key's writes in the
// order they happened. A flusher thread writes what has accumulated as one block and, per policy, fsyncs:
//   always   - after every block; a connection sends its replies only once its writes are durable (group commit);
//   everysec - once a second (a crash loses at most about the last second);
//   no       - never (the OS decides).
// Files: appendonly.<seq>.aof in --dir; a checkpoint rotates to a new file (Rotate, under all key locks), and files
// older than the oldest kept checkpoint's are deleted. Block format: "GAOF" | payload length (int32 LE) |
// time of the block's first command (Unix ms, int64 LE) | CRC-64 of time and payload (8 bytes LE) | payload (whole RESP
// commands). Replay judges expiry at that time. A block cut short by a crash is a torn tail.
// Invariants: an append's position (Lsn) is the count of payload bytes appended before it and itself, over all files;
// DurableLsn only grows, and everything below it is on disk (fsynced) when the policy is always.
using System.Buffers;
using System.Buffers.Binary;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Persistence;

public enum AofFsync { Always, EverySec, No }

public sealed class AofLog : IDisposable
{
    public const string FilePrefix = "appendonly.", FileSuffix = ".aof";
    public static readonly byte[] BlockMagic = "GAOF"u8.ToArray();
    public const int BlockHeader = 24;

    private readonly string _dir;
    private readonly ILogger _logger;
    private readonly object _appendLock = new();
    private ArrayBufferWriter<byte> _current = new(1 << 16);
    private long _currentStartMs;
    private readonly List<(long seq, ArrayBufferWriter<byte> data, long endLsn, long startMs)> _sealed = new();
    private long _seq;          // file that new appends go to
    private int _lastDb;        // database of the last append in the current file
    private long _appendLsn;
    private long _durableLsn;
    private long _writtenLsn;
    private readonly Thread _flusher;
    private readonly AutoResetEvent _wake = new(false);
    private volatile bool _stopping;
    private TaskCompletionSource _nextFlush = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private FileStream? _file;
    private long _fileLength; // end of the last whole block written to _file
    private long _fileSeq = -1;
    private long _lastFsyncMs = Environment.TickCount64;
    private volatile bool _forceSync;

    /// <summary>startLsn: where positions continue from (a log that replaces another at run time continues its positions, so
    /// a connection still holding a position of the old log never waits on the new one).</summary>
    public AofLog(string dir, long firstSequence, AofFsync policy, ILogger logger, long startLsn = 0)
    {
        _dir = Path.GetFullPath(dir);
        _seq = firstSequence;
        _policy = policy;
        _appendLsn = _durableLsn = _writtenLsn = startLsn;
        _logger = logger;
        _flusher = new Thread(FlushLoop) { IsBackground = true, Name = "aof-flusher" };
        _flusher.Start();
    }

    private volatile AofFsync _policy;
    /// <summary>The fsync policy (CONFIG SET appendfsync changes it; the flusher uses the new one from its next round).</summary>
    public AofFsync Policy { get => _policy; set { _policy = value; _wake.Set(); } }

    /// <summary>Reports how long a write or an fsync of the writer took (event, ms): the latency monitor's aof-write,
    /// aof-fsync-always and aof-fsync events (it keeps those over latency-monitor-threshold).</summary>
    public Action<string, long>? Latency { get; set; }
    public long DurableLsn => Interlocked.Read(ref _durableLsn);
    public long AppendedLsn { get { lock (_appendLock) return _appendLsn; } }
    public long CurrentSequence { get { lock (_appendLock) return _seq; } }
    public bool LastWriteOk { get; private set; } = true;
    public long BytesWritten => Interlocked.Read(ref _writtenLsn);

    public static string FileName(long seq) => $"{FilePrefix}{seq}{FileSuffix}";

    /// <summary>The AOF files in dir, oldest first.</summary>
    public static List<(string path, long sequence)> Existing(string dir) => NumberedFiles.In(dir, FilePrefix, FileSuffix);

    /// <summary>Appends the running command of s as it was sent (rewrite null) or as rewrite says; returns its Lsn.</summary>
    public long Append(int db, Session.RespServerSession s, ArgRef[]? rewrite)
    {
        long lsn;
        bool big;
        lock (_appendLock)
        {
            long before = _current.WrittenCount;
            if (before == 0) _currentStartMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            if (db != _lastDb)
            {
                WriteSelect(_current, db);
                _lastDb = db;
            }
            if (rewrite is null)
            {
                WriteArrayHeader(_current, s.Argc);
                for (int i = 0; i < s.Argc; i++) WriteBulk(_current, s.Arg(i));
            }
            else
            {
                WriteArrayHeader(_current, rewrite.Length);
                foreach (var a in rewrite) WriteBulk(_current, a.Bytes ?? s.Arg(a.Index));
            }
            _appendLsn += _current.WrittenCount - before;
            lsn = _appendLsn;
            big = _current.WrittenCount >= 4 << 20;
        }
        // Only "always" has someone waiting for the flush; the other policies write every few milliseconds (or sooner
        // when a lot has accumulated), which keeps appends free of wake-ups.
        if ((Policy == AofFsync.Always || big) && Volatile.Read(ref _sleeping) == 1) _wake.Set();
        return lsn;
    }

    /// <summary>The running command of s as the AOF would log it (rewrite null: as sent).</summary>
    public static byte[][] Materialize(Session.RespServerSession s, ArgRef[]? rewrite)
    {
        if (rewrite is null)
        {
            var args = new byte[s.Argc][];
            for (int i = 0; i < args.Length; i++) args[i] = s.Arg(i).ToArray();
            return args;
        }
        var r = new byte[rewrite.Length][];
        for (int i = 0; i < r.Length; i++) r[i] = rewrite[i].Bytes ?? s.Arg(rewrite[i].Index).ToArray();
        return r;
    }

    /// <summary>Appends the writes of one transaction between MULTI and EXEC, in one append: they land in one block, which a
    /// replay applies whole or (torn by a crash) not at all. Returns the Lsn of its end.</summary>
    public long AppendTransaction(List<(int Db, byte[][] Args)> commands)
    {
        long lsn;
        lock (_appendLock)
        {
            long before = _current.WrittenCount;
            if (before == 0) _currentStartMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            WriteArrayHeader(_current, 1);
            WriteBulk(_current, "MULTI"u8);
            foreach (var (db, args) in commands)
            {
                if (db != _lastDb)
                {
                    WriteSelect(_current, db);
                    _lastDb = db;
                }
                WriteArrayHeader(_current, args.Length);
                foreach (var a in args) WriteBulk(_current, a);
            }
            WriteArrayHeader(_current, 1);
            WriteBulk(_current, "EXEC"u8);
            _appendLsn += _current.WrittenCount - before;
            lsn = _appendLsn;
        }
        if (Volatile.Read(ref _sleeping) == 1) _wake.Set();
        return lsn;
    }

    private int _sleeping;

    /// <summary>Completes when everything up to lsn is durable (policy always) or written (other policies).</summary>
    public ValueTask WaitDurableAsync(long lsn)
    {
        if (Interlocked.Read(ref _durableLsn) >= lsn) return default;
        return new ValueTask(WaitSlowAsync(lsn));
    }

    private async Task WaitSlowAsync(long lsn)
    {
        while (true)
        {
            var next = Volatile.Read(ref _nextFlush).Task;
            if (Interlocked.Read(ref _durableLsn) >= lsn) return;
            await next.ConfigureAwait(false); // while writing fails, the flusher retries and the reply waits
        }
    }

    /// <summary>Starts a new file for the appends that follow; returns its sequence. Call with no appends running.</summary>
    public long Rotate()
    {
        lock (_appendLock)
        {
            _sealed.Add((_seq, _current, _appendLsn, _currentStartMs));
            _current = new ArrayBufferWriter<byte>(1 << 16);
            _seq++;
            _lastDb = 0; // replay starts every file in database 0
            _wake.Set();
            return _seq;
        }
    }

    /// <summary>Writes everything appended so far and makes it durable (used at shutdown and by tests).</summary>
    public void FlushAndSync()
    {
        long target = AppendedLsn;
        _forceSync = true;
        _wake.Set();
        var deadline = Environment.TickCount64 + 30_000;
        while ((Interlocked.Read(ref _durableLsn) < target || _forceSync) && LastWriteOk && Environment.TickCount64 < deadline)
        {
            _wake.Set();
            Thread.Sleep(1);
        }
    }

    /// <summary>Deletes the files older than seq (a checkpoint holds what they held).</summary>
    public void DeleteBefore(long seq)
    {
        foreach (var (path, s) in Existing(_dir))
        {
            if (s >= seq) break;
            try { File.Delete(path); }
            catch (Exception ex) { _logger.LogWarning("Could not delete the old AOF file {File}: {Error}", path, ex.Message); }
        }
    }

    private void FlushLoop()
    {
        while (true)
        {
            bool stopping = _stopping;
            Interlocked.Exchange(ref _sleeping, 1);
            bool pending;
            lock (_appendLock) pending = _current.WrittenCount > 0 || _sealed.Count > 0;
            if (Policy != AofFsync.Always && !stopping) _wake.WaitOne(5);
            else if (!pending && !stopping) _wake.WaitOne(50);
            Interlocked.Exchange(ref _sleeping, 0);
            List<(long seq, ArrayBufferWriter<byte> data, long endLsn, long startMs)> blocks;
            lock (_appendLock)
            {
                blocks = new List<(long, ArrayBufferWriter<byte>, long, long)>(_sealed);
                _sealed.Clear();
                if (_current.WrittenCount > 0)
                {
                    blocks.Add((_seq, _current, _appendLsn, _currentStartMs));
                    _current = new ArrayBufferWriter<byte>(1 << 16);
                }
                else if (blocks.Count == 0 && _fileSeq != _seq) blocks.Add((_seq, new ArrayBufferWriter<byte>(1), _appendLsn, 0)); // create the file early
            }
            int written = 0;
            long end = -1;
            try
            {
                Garnet.common.Util.FaultPoints.Hit("aof-write"); // test seam: handled as a failed write (retried)
                long writeStart = System.Diagnostics.Stopwatch.GetTimestamp();
                foreach (var (seq, data, endLsn, startMs) in blocks)
                {
                    WriteBlock(seq, data.WrittenSpan, startMs);
                    end = endLsn;
                    written++;
                }
                if (written > 0) Latency?.Invoke("aof-write", (long)System.Diagnostics.Stopwatch.GetElapsedTime(writeStart).TotalMilliseconds);
                bool sync = Policy == AofFsync.Always || (Policy == AofFsync.EverySec && Environment.TickCount64 - _lastFsyncMs >= 1000) || stopping || _forceSync;
                _forceSync = false;
                if (sync && _file is not null)
                {
                    long fsyncStart = System.Diagnostics.Stopwatch.GetTimestamp();
                    _file.Flush(flushToDisk: true);
                    Latency?.Invoke(Policy == AofFsync.Always ? "aof-fsync-always" : "aof-fsync", (long)System.Diagnostics.Stopwatch.GetElapsedTime(fsyncStart).TotalMilliseconds);
                    _lastFsyncMs = Environment.TickCount64;
                }
                if (end >= 0)
                {
                    Interlocked.Exchange(ref _writtenLsn, end);
                    if (sync || Policy != AofFsync.Always) Interlocked.Exchange(ref _durableLsn, end);
                }
                else if (sync) Interlocked.Exchange(ref _durableLsn, Interlocked.Read(ref _writtenLsn));
                if (!LastWriteOk) _logger.LogWarning("The append-only file in {Dir} can be written again: writes are accepted again", _dir);
                LastWriteOk = true;
            }
            catch (Exception ex)
            {
                // Nothing is lost: the file is cut back to the last whole block and the blocks not written are queued
                // again, in order, for the next round. Replies waiting for them (always) keep waiting.
                // One line per failure episode (the trace only at debug level), not one per retry.
                if (LastWriteOk)
                {
                    _logger.LogError("Writing the append-only file in {Dir} failed: {Error}. Writes are refused (MISCONF) and the write is retried until it succeeds; reads go on", _dir, ex.GetBaseException().Message);
                    _logger.LogDebug(ex, "Append-only file write failure");
                }
                LastWriteOk = false;
                if (end >= 0) Interlocked.Exchange(ref _writtenLsn, end); // written, not yet durable: the next fsync covers them
                try { if (_file is not null) { _file.SetLength(_fileLength); _file.Position = _fileLength; } }
                catch (Exception cut) { _logger.LogDebug(cut, "Cutting the append-only file back to its last whole block failed"); }
                lock (_appendLock) _sealed.InsertRange(0, blocks.Skip(written));
                Thread.Sleep(100);
            }
            var done = Interlocked.Exchange(ref _nextFlush, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
            done.TrySetResult();
            if (stopping) { _file?.Dispose(); return; }
        }
    }

    private void WriteBlock(long seq, ReadOnlySpan<byte> payload, long startMs)
    {
        if (_fileSeq != seq)
        {
            if (_file is not null)
            {
                _file.Flush(flushToDisk: true);
                _file.Dispose();
                _file = null; // a failure below reopens on the next round instead of using a closed file
                _fileSeq = -1;
            }
            string path = Path.Combine(_dir, FileName(seq));
            var file = new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.Read, bufferSize: 0);
            DurableFiles.SyncDirectory(_dir);
            _file = file;
            _fileSeq = seq;
            _fileLength = file.Length;
        }
        if (payload.IsEmpty) return;
        var block = new byte[BlockHeader + payload.Length];
        BlockMagic.CopyTo(block, 0);
        BinaryPrimitives.WriteInt32LittleEndian(block.AsSpan(4), payload.Length);
        BinaryPrimitives.WriteInt64LittleEndian(block.AsSpan(8), startMs);
        BinaryPrimitives.WriteUInt64LittleEndian(block.AsSpan(16), BlockCrc(block.AsSpan(8, 8), payload));
        payload.CopyTo(block.AsSpan(BlockHeader));
        _file!.Write(block);
        _fileLength += block.Length;
    }

    /// <summary>The CRC of a block: its time field, then its payload.</summary>
    public static ulong BlockCrc(ReadOnlySpan<byte> time, ReadOnlySpan<byte> payload) => RdbEncoding.Crc64(RdbEncoding.Crc64(0, time), payload);

    private static void WriteSelect(ArrayBufferWriter<byte> w, int db)
    {
        WriteArrayHeader(w, 2);
        WriteBulk(w, "SELECT"u8);
        Span<byte> digits = stackalloc byte[11];
        db.TryFormat(digits, out int n);
        WriteBulk(w, digits[..n]);
    }

    private static void WriteArrayHeader(ArrayBufferWriter<byte> w, int count)
    {
        var s = w.GetSpan(16);
        s[0] = (byte)'*';
        count.TryFormat(s[1..], out int n);
        s[1 + n] = (byte)'\r';
        s[2 + n] = (byte)'\n';
        w.Advance(3 + n);
    }

    private static void WriteBulk(ArrayBufferWriter<byte> w, ReadOnlySpan<byte> bytes)
    {
        var s = w.GetSpan(16);
        s[0] = (byte)'$';
        bytes.Length.TryFormat(s[1..], out int n);
        s[1 + n] = (byte)'\r';
        s[2 + n] = (byte)'\n';
        w.Advance(3 + n);
        w.Write(bytes);
        w.Write("\r\n"u8);
    }

    public void Dispose()
    {
        _stopping = true;
        _wake.Set();
        _flusher.Join(TimeSpan.FromSeconds(30));
    }
}

/// <summary>One argument of a logged command: a request argument by index, or replacement bytes.</summary>
public readonly record struct ArgRef(int Index, byte[]? Bytes)
{
    public static ArgRef Of(int index) => new(index, null);
    public static ArgRef Of(byte[] bytes) => new(-1, bytes);
    public static ArgRef Of(string text) => new(-1, System.Text.Encoding.UTF8.GetBytes(text));
}
