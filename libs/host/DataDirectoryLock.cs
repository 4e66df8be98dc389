// DataDirectoryLock: one server per data directory (--dir).
// Invariants:
//  - Acquire runs before anything in the directory is read or deleted: it creates the directory, checks that it is a
//    writable directory, and takes an exclusive, non-blocking lock on <dir>/garnet.lock, into which it writes its PID.
//  - The lock is an OS lock on the open file (flock on Linux and macOS, a FileShare.None handle on Windows): the kernel
//    drops it when the process ends, even by SIGKILL, so a lock file left behind never blocks a start.
//  - The file is never deleted: a deleted lock file would let two servers lock two different files of the same name.
//  - Within one process a second Acquire on the same directory fails too (flock belongs to the open file description).
//  - Dispose releases the lock; it is idempotent.
// Every failure is one line naming --dir, the directory and the reason (OptionsException, or DataDirectoryInUseException).
using System.Runtime.InteropServices;
using Garnet.Options;

namespace Garnet;

public sealed class DataDirectoryLock : IDisposable
{
    public const string FileName = "garnet.lock";

    private FileStream? _file;

    private DataDirectoryLock(string directory, FileStream file)
    {
        DirectoryPath = directory;
        _file = file;
    }

    /// <summary>The data directory's full path.</summary>
    public string DirectoryPath { get; }

    public string LockFilePath => Path.Combine(DirectoryPath, FileName);

    public static DataDirectoryLock Acquire(string dir)
    {
        string full = Path.GetFullPath(dir);
        if (File.Exists(full)) throw new OptionsException($"Invalid value for --dir: '{dir}' is not a directory.");
        try { Directory.CreateDirectory(full); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new OptionsException($"Invalid value for --dir: '{dir}' cannot be created ({Reason(ex)}).");
        }
        if (!OperatingSystem.IsWindows() && Native.access(full, Native.W_OK | Native.X_OK) != 0)
            throw new OptionsException($"Invalid value for --dir: '{dir}' is not writable ({Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}).");

        string path = Path.Combine(full, FileName);
        FileStream file;
        try { file = new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None); }
        catch (IOException ex) when (IsLockedByOther(ex)) { throw InUse(full, path); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new OptionsException($"Invalid value for --dir: '{dir}' is not writable ({Reason(ex)}).");
        }
        try
        {
            // .NET takes the flock itself for FileShare.None unless DOTNET_SYSTEM_IO_DISABLEFILELOCKING is set: take it
            // here as well so that the setting cannot turn this lock off (a second flock on the same file is a no-op).
            if (!OperatingSystem.IsWindows() && Native.flock((int)file.SafeFileHandle.DangerousGetHandle(), Native.LOCK_EX | Native.LOCK_NB) != 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                file.Dispose();
                if (errno == Native.EWOULDBLOCK) throw InUse(full, path);
                throw new OptionsException($"Invalid value for --dir: '{dir}' cannot be locked ({Marshal.GetPInvokeErrorMessage(errno)}).");
            }
            file.SetLength(0);
            file.Write(System.Text.Encoding.ASCII.GetBytes(Environment.ProcessId + "\n"));
            file.Flush();
        }
        catch (IOException ex) when (ex is not DataDirectoryInUseException)
        {
            file.Dispose();
            throw new OptionsException($"Invalid value for --dir: '{dir}' is not writable ({Reason(ex)}).");
        }
        return new DataDirectoryLock(full, file);
    }

    /// <summary>The PID written into the lock file of dir by the server holding it, if it can be read.</summary>
    public static int? ReadHolderPid(string dir)
    {
        string path = Path.Combine(Path.GetFullPath(dir), FileName);
        try
        {
            string text;
            if (OperatingSystem.IsWindows()) text = File.ReadAllText(path); // fails while the holder's handle is open
            else
            {
                // Not through FileStream: .NET would take a shared flock, which the holder's exclusive one refuses.
                int fd = Native.open(path, Native.O_RDONLY);
                if (fd < 0) return null;
                var buffer = new byte[32];
                nint n;
                try { n = Native.read(fd, buffer, buffer.Length); }
                finally { Native.close(fd); }
                if (n <= 0) return null;
                text = System.Text.Encoding.ASCII.GetString(buffer, 0, (int)n);
            }
            return int.TryParse(text.Trim(), out int pid) && pid > 0 ? pid : null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }

    public void Dispose()
    {
        var file = Interlocked.Exchange(ref _file, null);
        if (file is null) return;
        try { file.SetLength(0); } catch (IOException) { } // no stale PID for the next reader
        file.Dispose(); // closing the handle drops the lock
    }

    private static DataDirectoryInUseException InUse(string full, string path)
    {
        int? pid = ReadHolderPid(full);
        string holder = pid is null ? "another server" : $"another server (PID {pid})";
        return new DataDirectoryInUseException($"Cannot use --dir '{full}': {holder} is using it (lock file {path}).", full, pid);
    }

    private static bool IsLockedByOther(IOException ex) =>
        OperatingSystem.IsWindows() ? (ex.HResult & 0xFFFF) is 32 or 33 /* sharing or lock violation */ : ex.HResult == Native.EWOULDBLOCK;

    /// <summary>The OS's reason in words ("No such file or directory" rather than .NET's "Could not find file ...").</summary>
    private static string Reason(Exception ex) => ex switch
    {
        FileNotFoundException or DirectoryNotFoundException => "No such file or directory",
        UnauthorizedAccessException => "Permission denied",
        _ => ex.Message.TrimEnd('.'),
    };

    private static class Native
    {
        public const int LOCK_EX = 2, LOCK_NB = 4, O_RDONLY = 0, W_OK = 2, X_OK = 1;
        public static readonly int EWOULDBLOCK = OperatingSystem.IsLinux() ? 11 : 35;

        [DllImport("libc", SetLastError = true)]
        public static extern int flock(int fd, int operation);

        [DllImport("libc", SetLastError = true)]
        public static extern int access([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int mode);

        [DllImport("libc", SetLastError = true)]
        public static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

        [DllImport("libc", SetLastError = true)]
        public static extern nint read(int fd, byte[] buffer, nint count);

        [DllImport("libc", SetLastError = true)]
        public static extern int close(int fd);
    }
}

/// <summary>Another server holds the data directory's lock. The message is one line naming --dir and, if known, the PID.</summary>
public sealed class DataDirectoryInUseException(string message, string directory, int? holderPid) : IOException(message)
{
    public string DirectoryPath { get; } = directory;
    public int? HolderPid { get; } = holderPid;
}
