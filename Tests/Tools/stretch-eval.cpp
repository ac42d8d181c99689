// Compares Rubber Band (R2 "faster", R3 "finer", real-time mode) and SoundTouch for Fermata's slow-down: CPU seconds per
// audio second and tone purity (block-wise least-squares sine fit SNR) at 75, 80 and 120 % speed. Not part of the build:
//   g++ -O2 -o /tmp/stretch-eval-bin Tests/Tools/stretch-eval.cpp $(pkg-config --cflags --libs rubberband soundtouch) && /tmp/stretch-eval-bin
// (needs librubberband-dev and libsoundtouch-dev). The figures and the choice are in README.md.
#include <rubberband/rubberband-c.h>
#include <soundtouch/SoundTouch.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>
#include <string>
static double cpu() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
const int RATE = 44100, CH = 2;
// Signal: 440 Hz + 660 Hz tones (music-like steady partials), stereo.
static std::vector<float> makeSignal(int frames, std::vector<double> freqs) {
    std::vector<float> s(frames * CH);
    for (int i = 0; i < frames; i++) { double v = 0; for (double f : freqs) v += 0.3 * sin(2 * M_PI * f * i / RATE);
        for (int c = 0; c < CH; c++) s[i * CH + c] = (float)v; }
    return s;
}
// SNR of channel 0 against the best fit of the given partials, per 4096-frame block, skipping the edges.
static double purity(const std::vector<float>& out, std::vector<double> freqs) {
    int frames = out.size() / CH, B = 4096; double sig = 0, res = 0;
    for (int start = B * 4; start + B < frames - B * 4; start += B) {
        int K = freqs.size() * 2 + 1; std::vector<double> ata(K * K, 0), atb(K, 0);
        auto basis = [&](int i, int k) { if (k == K - 1) return 1.0; double f = freqs[k / 2]; double ph = 2 * M_PI * f * (start + i) / RATE; return k % 2 ? cos(ph) : sin(ph); };
        for (int i = 0; i < B; i++) { double y = out[(start + i) * CH];
            for (int a = 0; a < K; a++) { double ba = basis(i, a); atb[a] += ba * y; for (int b = 0; b < K; b++) ata[a * K + b] += ba * basis(i, b); } }
        // Gaussian elimination
        std::vector<double> x(K); for (int c = 0; c < K; c++) { int p = c; for (int r = c + 1; r < K; r++) if (fabs(ata[r*K+c]) > fabs(ata[p*K+c])) p = r;
            for (int k = 0; k < K; k++) std::swap(ata[c*K+k], ata[p*K+k]); std::swap(atb[c], atb[p]);
            for (int r = c + 1; r < K; r++) { double m = ata[r*K+c] / ata[c*K+c]; for (int k = c; k < K; k++) ata[r*K+k] -= m * ata[c*K+k]; atb[r] -= m * atb[c]; } }
        for (int c = K - 1; c >= 0; c--) { double v = atb[c]; for (int k = c + 1; k < K; k++) v -= ata[c*K+k] * x[k]; x[c] = v / ata[c*K+c]; }
        for (int i = 0; i < B; i++) { double fit = 0; for (int k = 0; k < K; k++) fit += x[k] * basis(i, k); double y = out[(start + i) * CH];
            sig += fit * fit; res += (y - fit) * (y - fit); }
    }
    return 10 * log10(sig / res);
}
static std::vector<float> runRB(const std::vector<float>& in, double speed, int engine, double& secs) {
    int frames = in.size() / CH; const int P = 1024;
    RubberBandState rb = rubberband_new(RATE, CH, RubberBandOptionProcessRealTime | engine | RubberBandOptionPitchHighConsistency, 1.0 / speed, 1.0);
    rubberband_set_max_process_size(rb, P);
    std::vector<float> out; std::vector<float> a(P * 4), b(P * 4), oa(8192), ob(8192);
    double t0 = cpu();
    for (int pos = 0; pos < frames; pos += P) { int n = std::min(P, frames - pos);
        for (int i = 0; i < n; i++) { a[i] = in[(pos + i) * CH]; b[i] = in[(pos + i) * CH + 1]; }
        const float* ip[2] = {a.data(), b.data()}; rubberband_process(rb, ip, n, pos + n >= frames);
        int av; while ((av = rubberband_available(rb)) > 0) { float* op[2] = {oa.data(), ob.data()}; int got = rubberband_retrieve(rb, op, std::min(av, 8192));
            for (int i = 0; i < got; i++) { out.push_back(oa[i]); out.push_back(ob[i]); } } }
    secs = cpu() - t0; rubberband_delete(rb); return out;
}
static std::vector<float> runST(const std::vector<float>& in, double speed, double& secs) {
    soundtouch::SoundTouch st; st.setSampleRate(RATE); st.setChannels(CH); st.setTempo(speed);
    int frames = in.size() / CH; const int P = 1024; std::vector<float> out, buf(8192 * CH);
    double t0 = cpu();
    for (int pos = 0; pos < frames; pos += P) { int n = std::min(P, frames - pos); st.putSamples(&in[pos * CH], n);
        int got; while ((got = st.receiveSamples(buf.data(), 8192)) > 0) out.insert(out.end(), buf.begin(), buf.begin() + got * CH); }
    st.flush(); int got; while ((got = st.receiveSamples(buf.data(), 8192)) > 0) out.insert(out.end(), buf.begin(), buf.begin() + got * CH);
    secs = cpu() - t0; return out;
}
int main() {
    int seconds = 30, frames = seconds * RATE;
    std::vector<double> freqs = {440, 660};
    auto in = makeSignal(frames, freqs);
    for (double speed : {0.75, 0.8, 1.2}) {
        double s;
        auto r2 = runRB(in, speed, RubberBandOptionEngineFaster, s);
        printf("speed %.2f  rubberband R2 (faster): cpu %.4f s/audio s, length %.4f of expected, purity %.1f dB\n", speed, s / seconds, (double)r2.size() / CH / (frames / speed), purity(r2, freqs));
        auto r3 = runRB(in, speed, RubberBandOptionEngineFiner, s);
        printf("speed %.2f  rubberband R3 (finer):  cpu %.4f s/audio s, length %.4f of expected, purity %.1f dB\n", speed, s / seconds, (double)r3.size() / CH / (frames / speed), purity(r3, freqs));
        auto st = runST(in, speed, s);
        printf("speed %.2f  soundtouch 2.3:        cpu %.4f s/audio s, length %.4f of expected, purity %.1f dB\n", speed, s / seconds, (double)st.size() / CH / (frames / speed), purity(st, freqs));
    }
}
