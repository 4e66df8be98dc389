// PubSubBench: pub/sub fan-out throughput of any Redis-protocol server. One publisher pipelines PUBLISH to one
// channel (batches of --window commands); --subscribers raw RESP2 connections subscribe to it and count what arrives.
// Reported: messages delivered per second (summed over subscribers) and messages published per second, measured for
// --seconds after --warmup seconds. The publisher never runs more than --max-lag messages ahead of the slowest
// subscriber, so no server has to buffer without bound (nor disconnect subscribers at its output limits).
//
//   dotnet run -c Release --project benchmark/PubSubBench -- --port 6379 --subscribers 50 --seconds 10
using System.Diagnostics;
using System.Net.Sockets;
using System.Text;

var opts = Options.Parse(args);
if (opts is null) return 2;

string channel = "pubsubbench:" + Guid.NewGuid().ToString("N")[..8];
var payload = new byte[opts.Size];
new Random(42).NextBytes(payload);
for (int i = 0; i < payload.Length; i++) payload[i] = (byte)('a' + payload[i] % 26);
byte[] message = Encode("*3\r\n$7\r\nmessage\r\n", channel, payload);
byte[] publish = Command("PUBLISH", Encoding.ASCII.GetBytes(channel), payload);
byte[] publishBatch = Enumerable.Repeat(publish, opts.Window).SelectMany(b => b).ToArray();

Socket Connect()
{
    var s = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveBufferSize = 1 << 20, SendBufferSize = 1 << 20 };
    s.Connect(opts.Host, opts.Port);
    return s;
}

void ReadExactly(Socket s, byte[] expected)
{
    var got = new byte[expected.Length];
    int n = 0;
    while (n < got.Length)
    {
        int r = s.Receive(got, n, got.Length - n, SocketFlags.None);
        if (r == 0) throw new IOException("closed by the server");
        n += r;
    }
    if (!got.AsSpan().SequenceEqual(expected)) throw new InvalidDataException("unexpected reply: " + Encoding.ASCII.GetString(got));
}

// Subscribers: each counts the bytes it receives after its confirmation; messages are all the same size.
var subscribers = new Socket[opts.Subscribers];
var received = new long[opts.Subscribers];
var closed = new bool[opts.Subscribers];
byte[] confirmation = Encode("*3\r\n$9\r\nsubscribe\r\n", channel, null, ":1\r\n");
for (int i = 0; i < subscribers.Length; i++)
{
    subscribers[i] = Connect();
    subscribers[i].Send(Command("SUBSCRIBE", Encoding.ASCII.GetBytes(channel)));
    ReadExactly(subscribers[i], confirmation);
}
var readers = new Thread[subscribers.Length];
for (int i = 0; i < subscribers.Length; i++)
{
    int me = i;
    readers[i] = new Thread(() =>
    {
        var buffer = new byte[256 * 1024];
        try
        {
            while (true)
            {
                int n = subscribers[me].Receive(buffer);
                if (n == 0) break;
                Interlocked.Add(ref received[me], n);
            }
        }
        catch (Exception) { }
        Volatile.Write(ref closed[me], true);
    }) { IsBackground = true, Name = "subscriber " + i };
    readers[i].Start();
}
long Delivered(int i) => Interlocked.Read(ref received[i]) / message.Length;
long TotalDelivered() { long t = 0; for (int i = 0; i < subscribers.Length; i++) t += Delivered(i); return t; }
long SlowestDelivered() { long m = long.MaxValue; for (int i = 0; i < subscribers.Length; i++) if (!Volatile.Read(ref closed[i])) m = Math.Min(m, Delivered(i)); return m == long.MaxValue ? 0 : m; }

// Publisher: batches of --window PUBLISH, each batch's replies read before the next (one reply per line).
using var pub = Connect();
long published = 0, lagWaits = 0;
bool stop = false;
var replyBuffer = new byte[64 * 1024];
var publisher = new Thread(() =>
{
    while (!Volatile.Read(ref stop))
    {
        while (Interlocked.Read(ref published) - SlowestDelivered() > opts.MaxLag && !Volatile.Read(ref stop)) { lagWaits++; Thread.Yield(); }
        pub.Send(publishBatch);
        int lines = 0;
        while (lines < opts.Window)
        {
            int n = pub.Receive(replyBuffer);
            if (n == 0) throw new IOException("publisher closed by the server");
            for (int j = 0; j < n; j++) if (replyBuffer[j] == (byte)'\n') lines++;
        }
        Interlocked.Add(ref published, opts.Window);
    }
}) { IsBackground = true, Name = "publisher" };

Console.WriteLine($"server {opts.Host}:{opts.Port}, {opts.Subscribers} subscribers of one channel, {opts.Size}-byte messages " +
                  $"({message.Length} bytes on the wire), PUBLISH batches of {opts.Window}, max lag {opts.MaxLag}, warmup {opts.Warmup} s, measured {opts.Seconds} s");
publisher.Start();
Thread.Sleep(TimeSpan.FromSeconds(opts.Warmup));
long delivered0 = TotalDelivered(), published0 = Interlocked.Read(ref published);
var sw = Stopwatch.StartNew();
for (int s = 1; s <= opts.Seconds; s++)
{
    Thread.Sleep(1000);
    double secs = sw.Elapsed.TotalSeconds;
    Console.WriteLine($"  {s,3} s: {(TotalDelivered() - delivered0) / secs,12:N0} delivered/s  {(Interlocked.Read(ref published) - published0) / secs,10:N0} published/s");
}
double elapsed = sw.Elapsed.TotalSeconds;
long delivered1 = TotalDelivered(), published1 = Interlocked.Read(ref published);
Volatile.Write(ref stop, true);
publisher.Join();

// Everything published must arrive at every subscriber still connected.
long total = Interlocked.Read(ref published);
var deadline = Stopwatch.StartNew();
while (deadline.Elapsed < TimeSpan.FromSeconds(10) && Enumerable.Range(0, subscribers.Length).Any(i => !Volatile.Read(ref closed[i]) && Delivered(i) < total)) Thread.Sleep(10);
int disconnected = closed.Count(c => c);
bool complete = Enumerable.Range(0, subscribers.Length).All(i => Volatile.Read(ref closed[i]) || Delivered(i) == total);

Console.WriteLine($"delivered/s: {(delivered1 - delivered0) / elapsed:F0}");
Console.WriteLine($"published/s: {(published1 - published0) / elapsed:F0}");
Console.WriteLine($"subscribers disconnected: {disconnected}; every message delivered to every connected subscriber: {(complete ? "yes" : "no")}; publisher waits for lag: {lagWaits}");
foreach (var s in subscribers) s.Dispose();
return complete && disconnected == 0 ? 0 : 1;

static byte[] Command(params object[] args)
{
    var ms = new MemoryStream();
    ms.Write(Encoding.ASCII.GetBytes($"*{args.Length}\r\n"));
    foreach (var a in args)
    {
        var b = a as byte[] ?? Encoding.ASCII.GetBytes((string)a);
        ms.Write(Encoding.ASCII.GetBytes($"${b.Length}\r\n"));
        ms.Write(b);
        ms.Write("\r\n"u8);
    }
    return ms.ToArray();
}

static byte[] Encode(string head, string channel, byte[]? payload, string tail = "")
{
    var ms = new MemoryStream();
    ms.Write(Encoding.ASCII.GetBytes(head));
    ms.Write(Encoding.ASCII.GetBytes($"${channel.Length}\r\n{channel}\r\n"));
    if (payload is not null)
    {
        ms.Write(Encoding.ASCII.GetBytes($"${payload.Length}\r\n"));
        ms.Write(payload);
        ms.Write("\r\n"u8);
    }
    ms.Write(Encoding.ASCII.GetBytes(tail));
    return ms.ToArray();
}

internal sealed class Options
{
    public string Host = "127.0.0.1";
    public int Port = 6379, Subscribers = 50, Seconds = 10, Warmup = 2, Size = 32, Window = 64, MaxLag = 20_000;

    public static Options? Parse(string[] args)
    {
        var o = new Options();
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            string? v = i + 1 < args.Length ? args[i + 1] : null;
            bool ok = true;
            switch (a)
            {
                case "--host": o.Host = v ?? ""; i++; break;
                case "--port": ok = int.TryParse(v, out o.Port); i++; break;
                case "--subscribers": ok = int.TryParse(v, out o.Subscribers) && o.Subscribers > 0; i++; break;
                case "--seconds": ok = int.TryParse(v, out o.Seconds) && o.Seconds > 0; i++; break;
                case "--warmup": ok = int.TryParse(v, out o.Warmup) && o.Warmup >= 0; i++; break;
                case "--size": ok = int.TryParse(v, out o.Size) && o.Size >= 0; i++; break;
                case "--window": ok = int.TryParse(v, out o.Window) && o.Window > 0; i++; break;
                case "--max-lag": ok = int.TryParse(v, out o.MaxLag) && o.MaxLag > 0; i++; break;
                default:
                    Console.Error.WriteLine("usage: PubSubBench [--host 127.0.0.1] [--port 6379] [--subscribers 50] [--seconds 10] [--warmup 2] [--size 32] [--window 64] [--max-lag 20000]");
                    return null;
            }
            if (!ok) { Console.Error.WriteLine($"Invalid value for {a}: '{v}'"); return null; }
        }
        return o;
    }
}
