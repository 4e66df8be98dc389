// IoUring: a minimal Linux io_uring (kernel 5.6+) for reads: set-up, read and eventfd-read submission entries, submit
// and wait, completion reaping. Raw syscalls and shared ring memory; the safe surface is UringReader.
// Invariants:
//  - One thread at a time uses an instance: a SINGLE_ISSUER ring (where the kernel allows it) only the thread that
//    created it; a shared one (singleIssuer: false) whichever thread holds its owner's lock.
//  - The caller keeps at most CqEntries operations in flight, so the completion queue never overflows.
//  - Buffers and file descriptors named by a submitted entry stay valid until its completion is reaped.
using System.Runtime.InteropServices;

namespace Garnet.storage.Devices;

internal sealed unsafe partial class IoUring : IDisposable
{
    private const long SysSetup = 425, SysEnter = 426, SysRegister = 427; // the same on x86-64 and arm64 (asm-generic)
    private const uint RegisterEventFd = 4;
    private const uint SetupSingleIssuer = 1 << 12, SetupDeferTaskrun = 1 << 13;
    private const uint FeatSingleMmap = 1;
    private const uint EnterGetEvents = 1;
    private const long OffSqRing = 0, OffCqRing = 0x8000000, OffSqes = 0x10000000;
    private const byte OpRead = 22;
    private const int Eintr = 4, Ebusy = 16, Eagain = 11;

    private readonly int _fd;
    private readonly byte* _sqRing, _cqRing, _sqes;
    private readonly nuint _sqRingSize, _cqRingSize, _sqesSize;
    private readonly uint* _sqTail, _sqArray, _cqHead, _cqTail;
    private readonly uint _sqMask, _cqMask;
    private readonly byte* _cqes;
    private uint _sqLocalTail;     // entries written, of which _unsubmitted are not yet handed to the kernel
    private uint _unsubmitted;
    private bool _disposed;

    public uint SqEntries { get; }
    public uint CqEntries { get; }

    private IoUring(int fd, byte* p, uint sqEntries, uint cqEntries, byte* sqRing, nuint sqRingSize, byte* cqRing,
        nuint cqRingSize, byte* sqes, nuint sqesSize)
    {
        _fd = fd;
        SqEntries = sqEntries; CqEntries = cqEntries;
        _sqRing = sqRing; _sqRingSize = sqRingSize; _cqRing = cqRing; _cqRingSize = cqRingSize; _sqes = sqes; _sqesSize = sqesSize;
        // io_uring_params: sq_off at byte 40 (head, tail, ring_mask, ring_entries, flags, dropped, array, ...),
        // cq_off at byte 80 (head, tail, ring_mask, ring_entries, overflow, cqes, ...).
        uint* sqOff = (uint*)(p + 40), cqOff = (uint*)(p + 80);
        _sqTail = (uint*)(sqRing + sqOff[1]);
        _sqMask = *(uint*)(sqRing + sqOff[2]);
        _sqArray = (uint*)(sqRing + sqOff[6]);
        _cqHead = (uint*)(cqRing + cqOff[0]);
        _cqTail = (uint*)(cqRing + cqOff[1]);
        _cqMask = *(uint*)(cqRing + cqOff[2]);
        _cqes = cqRing + cqOff[5];
        _sqLocalTail = Volatile.Read(ref *_sqTail);
    }

    /// <summary>A ring of at least entries slots, or null (with the reason) where io_uring is unavailable. singleIssuer:
    /// only the calling thread will ever use it (it is then created SINGLE_ISSUER | DEFER_TASKRUN where the kernel
    /// allows, and posts completions only inside Submit); otherwise completions are posted as they finish.</summary>
    public static IoUring? TryCreate(uint entries, out string? why, bool singleIssuer = true)
    {
        why = null;
        if (!OperatingSystem.IsLinux()) { why = "io_uring needs Linux"; return null; }
        byte* p = stackalloc byte[120];
        int fd = -1;
        foreach (uint flags in singleIssuer ? new[] { SetupSingleIssuer | SetupDeferTaskrun, 0u } : new[] { 0u })
        {
            new Span<byte>(p, 120).Clear();
            *(uint*)(p + 8) = flags;
            fd = (int)syscall_setup(SysSetup, entries, p);
            if (fd >= 0) break;
        }
        if (fd < 0) { why = $"io_uring_setup failed (errno {Marshal.GetLastPInvokeError()})"; return null; }
        uint sqEntries = *(uint*)p, cqEntries = *(uint*)(p + 4), features = *(uint*)(p + 20);
        uint* sqOff = (uint*)(p + 40), cqOff = (uint*)(p + 80);
        nuint sqSize = sqOff[6] + sqEntries * 4u, cqSize = cqOff[5] + cqEntries * 16u;
        bool single = (features & FeatSingleMmap) != 0;
        if (single) sqSize = cqSize = Math.Max(sqSize, cqSize);
        const int prot = 3, shared = 1, populate = 0x8000;
        nint sq = mmap(0, sqSize, prot, shared | populate, fd, OffSqRing);
        nint cq = single ? sq : mmap(0, cqSize, prot, shared | populate, fd, OffCqRing);
        nuint sqesSize = sqEntries * 64u;
        nint sqes = mmap(0, sqesSize, prot, shared | populate, fd, OffSqes);
        if (sq == -1 || cq == -1 || sqes == -1)
        {
            why = $"mmap of the io_uring failed (errno {Marshal.GetLastPInvokeError()})";
            if (sq != -1) munmap(sq, sqSize);
            if (!single && cq != -1) munmap(cq, cqSize);
            if (sqes != -1) munmap(sqes, sqesSize);
            close(fd);
            return null;
        }
        return new IoUring(fd, p, sqEntries, cqEntries, (byte*)sq, sqSize, (byte*)cq, single ? 0 : cqSize, (byte*)sqes, sqesSize);
    }

    /// <summary>Queues a read of length bytes at offset of fd into buffer (not submitted until Submit).</summary>
    public void PrepareRead(int fd, byte* buffer, uint length, long offset, ulong userData)
    {
        uint index = _sqLocalTail & _sqMask;
        byte* e = _sqes + index * 64;
        new Span<byte>(e, 64).Clear();
        e[0] = OpRead;
        *(int*)(e + 4) = fd;
        *(long*)(e + 8) = offset;
        *(ulong*)(e + 16) = (ulong)buffer;
        *(uint*)(e + 24) = length;
        *(ulong*)(e + 32) = userData;
        _sqArray[index] = index;
        _sqLocalTail++;
        _unsubmitted++;
    }

    /// <summary>
    /// Hands queued entries to the kernel, posts the completions that are ready (a DEFER_TASKRUN ring posts them only
    /// here) and, when wait, blocks until at least one completion is there. Returns false
    /// when interrupted (nothing lost: call again).
    /// </summary>
    public bool Submit(bool wait)
    {
        Volatile.Write(ref *_sqTail, _sqLocalTail);
        int r = syscall_enter(SysEnter, _fd, _unsubmitted, wait ? 1u : 0u, EnterGetEvents, 0, 0);
        if (r >= 0) { _unsubmitted -= (uint)Math.Min(r, (int)_unsubmitted); return true; }
        int errno = Marshal.GetLastPInvokeError();
        if (errno is Eintr or Ebusy or Eagain) return false;
        throw new IOException($"io_uring_enter failed (errno {errno})");
    }

    /// <summary>Has the kernel signal eventFd whenever it posts a completion; false (with errno) when refused.</summary>
    public bool TryRegisterEventFd(int eventFd)
    {
        int value = eventFd;
        return syscall_register(SysRegister, _fd, RegisterEventFd, &value, 1) == 0;
    }

    /// <summary>Whether a completion waits to be reaped (a memory read, no system call).</summary>
    public bool HasCompletions => *_cqHead != Volatile.Read(ref *_cqTail);

    /// <summary>Entries prepared and not yet handed to the kernel.</summary>
    public uint Unsubmitted => _unsubmitted;

    /// <summary>The next completion, if any: its user data and result (bytes, or -errno).</summary>
    public bool TryReap(out ulong userData, out int result)
    {
        uint head = *_cqHead;
        if (head == Volatile.Read(ref *_cqTail)) { userData = 0; result = 0; return false; }
        byte* c = _cqes + (head & _cqMask) * 16;
        userData = *(ulong*)c;
        result = *(int*)(c + 8);
        Volatile.Write(ref *_cqHead, head + 1);
        return true;
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        munmap((nint)_sqes, _sqesSize);
        if (_cqRingSize != 0) munmap((nint)_cqRing, _cqRingSize);
        munmap((nint)_sqRing, _sqRingSize);
        close(_fd);
    }

    // A 64-bit counter whose reads complete when another thread adds to it: how a sleeping ring is woken.
    public static int CreateEventFd() => eventfd(0, 0x80000 /* EFD_CLOEXEC */);

    public static void SignalEventFd(int fd)
    {
        ulong one = 1;
        write(fd, &one, 8);
    }

    public static void CloseFd(int fd) => close(fd);

    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial long syscall_setup(long number, uint entries, byte* parameters);

    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial int syscall_enter(long number, int fd, uint toSubmit, uint minComplete, uint flags, nint sig, nint sigSize);

    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial int syscall_register(long number, int fd, uint opcode, void* arg, uint count);

    [LibraryImport("libc", SetLastError = true)]
    private static partial nint mmap(nint addr, nuint length, int prot, int flags, int fd, long offset);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int munmap(nint addr, nuint length);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int eventfd(uint initval, int flags);

    [LibraryImport("libc", SetLastError = true)]
    private static partial nint write(int fd, void* buffer, nuint count);
}
