package dev.kvs.replication.auth;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.security.auth.x500.X500Principal;

/**
 * Trusts a peer's certificate chain if it leads to one of the configured CA certificates and, when a
 * peer name is configured, its certificate carries that name (a DNS or IP subject alternative name, or
 * its common name). Checked inside the TLS handshake, so a peer that fails never gets a byte read.
 */
final class NamedPeerTrust extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager ca;
    private final String peerName;

    private NamedPeerTrust(X509ExtendedTrustManager ca, String peerName) {
        this.ca = ca;
        this.peerName = peerName;
    }

    /**
     * @param peerName the name the peer's certificate must carry, or null to accept any certificate the
     *     CA signed
     */
    static TrustManager of(Path caFile, String peerName) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caFile)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) throw new CertificateException("no certificate in " + caFile);
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(store);
        for (TrustManager t : f.getTrustManagers()) {
            if (t instanceof X509ExtendedTrustManager x) return new NamedPeerTrust(x, peerName);
        }
        throw new GeneralSecurityException("no X.509 trust manager");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        ca.checkClientTrusted(chain, authType, engine);
        checkName(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        ca.checkServerTrusted(chain, authType, engine);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        ca.checkClientTrusted(chain, authType, socket);
        checkName(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        ca.checkServerTrusted(chain, authType, socket);
        checkName(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        ca.checkClientTrusted(chain, authType);
        checkName(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        ca.checkServerTrusted(chain, authType);
        checkName(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return ca.getAcceptedIssuers();
    }

    private void checkName(X509Certificate[] chain) throws CertificateException {
        if (peerName == null) return;
        if (chain.length == 0 || !carries(chain[0], peerName)) {
            throw new CertificateException("the peer's certificate does not name " + peerName);
        }
    }

    /** True if {@code cert} names {@code name}: a DNS or IP subject alternative name, or its CN. */
    static boolean carries(X509Certificate cert, String name) throws CertificateParsingException {
        if (cert.getSubjectAlternativeNames() != null) {
            for (List<?> san : cert.getSubjectAlternativeNames()) {
                Object type = san.get(0);
                boolean dnsOrIp =
                        Integer.valueOf(2).equals(type) || Integer.valueOf(7).equals(type);
                if (dnsOrIp && name.equalsIgnoreCase(String.valueOf(san.get(1)))) return true;
            }
        }
        String dn = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
        for (String part : dn.split(",")) {
            if (part.trim().equalsIgnoreCase("CN=" + name)) return true;
        }
        return false;
    }
}
