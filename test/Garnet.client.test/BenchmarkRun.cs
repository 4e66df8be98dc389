// BenchmarkRun: runs Resp.benchmark in process (BenchmarkApp.Run) and keeps its exit code, output and JSON report.
using System.Text.Json;
using Resp.benchmark;

namespace Garnet.client.test;

public sealed class BenchmarkRun
{
    public int ExitCode { get; private init; }
    public string Output { get; private init; } = "";
    public string Errors { get; private init; } = "";
    public JsonElement Json { get; private init; }

    /// <summary>Runs with these arguments plus --json to a temporary file (parsed into Json when the run succeeds).</summary>
    public static BenchmarkRun Start(params string[] args)
    {
        string json = Path.Combine(Path.GetTempPath(), "resp-benchmark-" + Guid.NewGuid().ToString("N") + ".json");
        var output = new StringWriter();
        var errors = new StringWriter();
        int code = BenchmarkApp.Run([.. args, "--json", json], output, errors);
        TestContext.Out.WriteLine(output.ToString());
        if (errors.ToString().Length > 0) TestContext.Out.WriteLine("stderr: " + errors);
        JsonElement root = default;
        if (File.Exists(json))
        {
            root = JsonDocument.Parse(File.ReadAllText(json)).RootElement.Clone();
            File.Delete(json);
        }
        return new BenchmarkRun { ExitCode = code, Output = output.ToString(), Errors = errors.ToString(), Json = root };
    }

    public JsonElement Run(int i) => Json.GetProperty("runs")[i];
    public long Long(int run, string name) => Run(run).GetProperty(name).GetInt64();
}
