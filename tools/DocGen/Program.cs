// DocGen: writes the documentation that is generated from code, so it cannot drift from it.
//   docs/commands.md          <- docs/src/commands.md (human-written prose and difference notes) merged with CommandTable
//   <out>/options.md, config-parameters.md, options.json, commands.json  <- GarnetServerOptions, ConfigParameters, CommandTable
// Usage: dotnet run --project tools/DocGen -- [--repo DIR] [--out DIR] [--check]
//   --check: leave docs/commands.md alone and exit 1 if it is not what the generator would write (CI); <out> is written.
// Invariants: output is deterministic (same code + sources = same bytes); every problem found (a note naming no command,
// an option documented in docs/configuration.md that does not exist or the reverse) is printed and gives exit code 1.
using DocGen;

string? repo = null, outDir = null;
bool check = false;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--repo": repo = args[++i]; break;
        case "--out": outDir = args[++i]; break;
        case "--check": check = true; break;
        default: Console.Error.WriteLine($"Unknown option '{args[i]}'. Usage: DocGen [--repo DIR] [--out DIR] [--check]"); return 2;
    }
}
repo ??= FindRepo(AppContext.BaseDirectory) ?? FindRepo(Directory.GetCurrentDirectory());
if (repo is null) { Console.Error.WriteLine("Cannot find the repository root (Garnet.sln); pass --repo."); return 2; }
outDir ??= Path.Combine(repo, "website", ".gen");

var problems = new List<string>();
string commandsMd = CommandDocs.Render(File.ReadAllText(Path.Combine(repo, "docs", "src", "commands.md")), problems);
string target = Path.Combine(repo, "docs", "commands.md");
if (check)
{
    if (!File.Exists(target) || File.ReadAllText(target) != commandsMd)
        problems.Add("docs/commands.md is stale: run `dotnet run --project tools/DocGen` and commit it.");
}
else File.WriteAllText(target, commandsMd);
Directory.CreateDirectory(outDir);
File.WriteAllText(Path.Combine(outDir, "commands.json"), CommandDocs.Json());
File.WriteAllText(Path.Combine(outDir, "options.md"), OptionDocs.OptionsMarkdown());
File.WriteAllText(Path.Combine(outDir, "config-parameters.md"), OptionDocs.ParametersMarkdown());
File.WriteAllText(Path.Combine(outDir, "options.json"), OptionDocs.Json());
Console.WriteLine($"wrote {(check ? "" : target + " and ")}{outDir}/{{commands.json,options.md,config-parameters.md,options.json}}");
OptionDocs.CheckDocumented(File.ReadAllText(Path.Combine(repo, "docs", "configuration.md")), problems);
foreach (var p in problems) Console.Error.WriteLine("DocGen: " + p);
return problems.Count == 0 ? 0 : 1;

static string? FindRepo(string start)
{
    for (var d = new DirectoryInfo(start); d is not null; d = d.Parent)
        if (File.Exists(Path.Combine(d.FullName, "Garnet.sln"))) return d.FullName;
    return null;
}
