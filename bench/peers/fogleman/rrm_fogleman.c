/*
 * rrm benchmark driver for Michael Fogleman's Ricochet Robots solver
 * (github.com/fogleman/Ricochet, ricochet.c, MIT licence).
 *
 * This file is ours; the peer's source is NOT part of the rrm repository.
 * bench/peers/build fetches ricochet.c at a pinned commit and compiles this
 * driver with `-I <Ricochet checkout>`: the #include below pulls the peer's
 * translation unit in (its demo main() is renamed away), so the driver calls
 * the peer's own `search()` (iterative-deepening DFS with a transposition
 * table and a robot-free lower bound) on our puzzles.
 *
 * Usage: fogleman PUZZLES.jsonl
 * Input: neutral layout, one JSON object per line (name, width, height,
 *        walls[256] with N=1 E=2 S=4 W=8, robots[], target_cell, target_robot).
 * Output: one line per puzzle: name<TAB>moves<TAB>"0N 2E ..." (robot indices
 *         as in the input), or name<TAB>unsupported<TAB>reason,
 *         or name<TAB>none<TAB>reason when the peer finds no solution.
 *
 * Peer conventions handled here:
 *  - the peer's Game holds exactly 4 robots and the active (target) robot
 *    must be robots[0]; robots 1..3 are interchangeable in its state key.
 *    We move the target robot to slot 0 and map slots back to input indices.
 *  - walls are read only from the moving robot's own cell, so we make them
 *    symmetric (and add the outer walls) before handing them over.
 *  - cells holding a robot carry the peer's ROBOT bit (0x10) in grid[].
 *  - the peer's search depth is limited to MAX_DEPTH-1 = 31 moves.
 */
#define main fogleman_ricochet_demo_main
#include "ricochet.c"
#undef main

#include <ctype.h>
#include <errno.h>

#define BOARD 16
#define NCELLS (BOARD * BOARD)
#define MAX_ROBOTS_IN 64
#define NAME_MAX_LEN 1024

typedef struct {
    char name[NAME_MAX_LEN];
    long width, height;
    long walls[NCELLS];
    long nwalls;
    long robots[MAX_ROBOTS_IN];
    long nrobots;
    long target_cell;
    long target_robot; /* -1: wildcard (any robot) */
    int have_width, have_height, have_target_cell, have_target_robot;
    int walls_overflow, robots_overflow;
} Puzzle;

/* ---------- a tiny JSON reader, enough for the flat neutral layout ---------- */

typedef struct {
    const char *p;
    const char *err;
} Parser;

static void skip_ws(Parser *ps) {
    while (*ps->p && isspace((unsigned char)*ps->p)) ps->p++;
}

static int parse_string(Parser *ps, char *out, size_t cap) {
    size_t n = 0;
    skip_ws(ps);
    if (*ps->p != '"') { ps->err = "expected string"; return 0; }
    ps->p++;
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                /* keep \uXXXX escapes verbatim: names are ASCII in practice */
                if (out && n + 2 < cap) { out[n++] = '\\'; }
                c = 'u';
                break;
            case '\0': ps->err = "unterminated string"; return 0;
            default: c = e; break;
            }
        }
        if (out && n + 1 < cap) out[n++] = c;
    }
    if (*ps->p != '"') { ps->err = "unterminated string"; return 0; }
    ps->p++;
    if (out) out[n] = '\0';
    return 1;
}

static int parse_number(Parser *ps, long *out) {
    char *end;
    skip_ws(ps);
    errno = 0;
    double v = strtod(ps->p, &end);
    if (end == ps->p) { ps->err = "expected number"; return 0; }
    ps->p = end;
    *out = (long)v;
    return 1;
}

static int skip_value(Parser *ps);

static int skip_value(Parser *ps) {
    skip_ws(ps);
    char c = *ps->p;
    if (c == '"') return parse_string(ps, NULL, 0);
    if (c == '{' || c == '[') {
        char close = (c == '{') ? '}' : ']';
        ps->p++;
        skip_ws(ps);
        if (*ps->p == close) { ps->p++; return 1; }
        for (;;) {
            if (c == '{') {
                if (!parse_string(ps, NULL, 0)) return 0;
                skip_ws(ps);
                if (*ps->p != ':') { ps->err = "expected ':'"; return 0; }
                ps->p++;
            }
            if (!skip_value(ps)) return 0;
            skip_ws(ps);
            if (*ps->p == ',') { ps->p++; continue; }
            if (*ps->p == close) { ps->p++; return 1; }
            ps->err = "bad container";
            return 0;
        }
    }
    if (!strncmp(ps->p, "true", 4)) { ps->p += 4; return 1; }
    if (!strncmp(ps->p, "false", 5)) { ps->p += 5; return 1; }
    if (!strncmp(ps->p, "null", 4)) { ps->p += 4; return 1; }
    long dummy;
    return parse_number(ps, &dummy);
}

static int parse_int_array(Parser *ps, long *out, long cap, long *count, int *overflow) {
    skip_ws(ps);
    if (*ps->p != '[') { ps->err = "expected array"; return 0; }
    ps->p++;
    *count = 0;
    skip_ws(ps);
    if (*ps->p == ']') { ps->p++; return 1; }
    for (;;) {
        long v;
        if (!parse_number(ps, &v)) return 0;
        if (*count < cap) out[*count] = v; else *overflow = 1;
        (*count)++;
        skip_ws(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == ']') { ps->p++; return 1; }
        ps->err = "bad array";
        return 0;
    }
}

static int parse_puzzle(const char *line, Puzzle *pz) {
    Parser ps = { line, NULL };
    char key[64];
    memset(pz, 0, sizeof(*pz));
    pz->target_robot = -1;
    skip_ws(&ps);
    if (*ps.p != '{') { fprintf(stderr, "fogleman driver: expected object\n"); return 0; }
    ps.p++;
    skip_ws(&ps);
    if (*ps.p == '}') return 1;
    for (;;) {
        if (!parse_string(&ps, key, sizeof key)) break;
        skip_ws(&ps);
        if (*ps.p != ':') { ps.err = "expected ':'"; break; }
        ps.p++;
        skip_ws(&ps);
        int ok;
        if (!strcmp(key, "name")) {
            ok = parse_string(&ps, pz->name, sizeof pz->name);
        } else if (!strcmp(key, "width")) {
            ok = parse_number(&ps, &pz->width); pz->have_width = 1;
        } else if (!strcmp(key, "height")) {
            ok = parse_number(&ps, &pz->height); pz->have_height = 1;
        } else if (!strcmp(key, "walls")) {
            ok = parse_int_array(&ps, pz->walls, NCELLS, &pz->nwalls, &pz->walls_overflow);
        } else if (!strcmp(key, "robots")) {
            ok = parse_int_array(&ps, pz->robots, MAX_ROBOTS_IN, &pz->nrobots, &pz->robots_overflow);
        } else if (!strcmp(key, "target_cell")) {
            ok = parse_number(&ps, &pz->target_cell); pz->have_target_cell = 1;
        } else if (!strcmp(key, "target_robot")) {
            if (!strncmp(ps.p, "null", 4)) { ps.p += 4; pz->target_robot = -1; ok = 1; }
            else ok = parse_number(&ps, &pz->target_robot);
            pz->have_target_robot = 1;
        } else {
            ok = skip_value(&ps);
        }
        if (!ok) break;
        skip_ws(&ps);
        if (*ps.p == ',') { ps.p++; skip_ws(&ps); continue; }
        if (*ps.p == '}') return 1;
        ps.err = "expected ',' or '}'";
        break;
    }
    fprintf(stderr, "fogleman driver: JSON error: %s\n", ps.err ? ps.err : "?");
    return 0;
}

/* ---------- driver ---------- */

static const char *DIR_CHARS = "NESW";

static int dir_index(unsigned int bit) {
    switch (bit) {
    case NORTH: return 0;
    case EAST: return 1;
    case SOUTH: return 2;
    case WEST: return 3;
    }
    return -1;
}

static void solve_one(const Puzzle *pz) {
    const char *name = pz->name[0] ? pz->name : "?";
    if (!pz->have_width || !pz->have_height || pz->width != BOARD || pz->height != BOARD) {
        printf("%s\tunsupported\tboard must be 16x16 (got %ldx%ld)\n", name, pz->width, pz->height);
        return;
    }
    if (pz->nwalls != NCELLS || pz->walls_overflow) {
        printf("%s\tunsupported\texpected 256 wall cells (got %ld)\n", name, pz->nwalls);
        return;
    }
    if (pz->nrobots != 4) {
        printf("%s\tunsupported\tthe C core is hard-wired to 4 robots (puzzle has %ld)\n", name, pz->nrobots);
        return;
    }
    if (pz->target_robot < 0) {
        printf("%s\tunsupported\tno wildcard targets: the C core only moves robot 0 onto the target\n", name);
        return;
    }
    if (pz->target_robot >= pz->nrobots) {
        printf("%s\tunsupported\ttarget_robot %ld out of range\n", name, pz->target_robot);
        return;
    }
    if (!pz->have_target_cell || pz->target_cell < 0 || pz->target_cell >= NCELLS) {
        printf("%s\tunsupported\ttarget_cell missing or out of range\n", name);
        return;
    }
    for (long i = 0; i < pz->nrobots; i++) {
        if (pz->robots[i] < 0 || pz->robots[i] >= NCELLS) {
            printf("%s\tunsupported\trobot %ld position out of range\n", name, i);
            return;
        }
        for (long j = 0; j < i; j++) {
            if (pz->robots[i] == pz->robots[j]) {
                printf("%s\tunsupported\trobots %ld and %ld share a cell\n", name, j, i);
                return;
            }
        }
    }

    Game game;
    memset(&game, 0, sizeof game);
    for (int i = 0; i < NCELLS; i++) {
        game.grid[i] = (unsigned int)pz->walls[i] & 0x0f;
    }
    /* symmetric walls and a closed border: the peer checks only the cell it stands on */
    for (int r = 0; r < BOARD; r++) {
        for (int c = 0; c < BOARD; c++) {
            int i = r * BOARD + c;
            if (r == 0) game.grid[i] |= NORTH;
            if (r == BOARD - 1) game.grid[i] |= SOUTH;
            if (c == 0) game.grid[i] |= WEST;
            if (c == BOARD - 1) game.grid[i] |= EAST;
            if (r > 0 && (game.grid[i - BOARD] & SOUTH)) game.grid[i] |= NORTH;
            if (r < BOARD - 1 && (game.grid[i + BOARD] & NORTH)) game.grid[i] |= SOUTH;
            if (c > 0 && (game.grid[i - 1] & EAST)) game.grid[i] |= WEST;
            if (c < BOARD - 1 && (game.grid[i + 1] & WEST)) game.grid[i] |= EAST;
        }
    }
    /* slot 0 = target robot, slots 1..3 = the others in input order */
    int slot_to_input[4];
    int s = 0;
    slot_to_input[s++] = (int)pz->target_robot;
    for (int i = 0; i < 4; i++) {
        if (i != pz->target_robot) slot_to_input[s++] = i;
    }
    for (int k = 0; k < 4; k++) {
        unsigned int pos = (unsigned int)pz->robots[slot_to_input[k]];
        game.robots[k] = pos;
        SET_ROBOT(game.grid[pos]);
    }
    game.token = (unsigned int)pz->target_cell;
    game.last = 0;

    if (game.robots[0] == game.token) {
        printf("%s\t0\t\n", name);
        return;
    }

    unsigned char path[MAX_DEPTH + 8];
    memset(path, 0, sizeof path);
    unsigned int depth = search(&game, path, NULL);
    if (depth == 0) {
        printf("%s\tnone\tno solution within %d moves\n", name, MAX_DEPTH - 1);
        return;
    }
    printf("%s\t%u\t", name, depth);
    for (unsigned int i = 0; i < depth; i++) {
        unsigned int robot = (path[i] >> 4) & 0x0f;
        int d = dir_index(path[i] & 0x0f);
        if (robot >= 4 || d < 0) {
            fprintf(stderr, "fogleman driver: bad move byte 0x%02x\n", path[i]);
            printf("%s?", i ? " " : "");
            continue;
        }
        printf("%s%d%c", i ? " " : "", slot_to_input[robot], DIR_CHARS[d]);
    }
    printf("\n");
}

int main(int argc, char *argv[]) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PUZZLES.jsonl\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    static Puzzle pz;
    int status = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        const char *p = line;
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) continue;
        if (!parse_puzzle(p, &pz)) {
            printf("%s\tunsupported\tcould not parse the input line\n", pz.name[0] ? pz.name : "?");
            status = 1;
            fflush(stdout);
            continue;
        }
        solve_one(&pz);
        fflush(stdout);
    }
    free(line);
    fclose(f);
    return status;
}
