// NodeJMX changes a running node's settings over its local JMX port, as
// nodetool would (the assembled distribution has no nodetool). Run as a
// single source file, `java NodeJMX.java PORT COMMAND [ARG]`:
//
//   paxos [v1|v2]   print (and set) paxos_variant, StorageProxy's PaxosVariant
//   trace P         set the probability of tracing a request (settraceprobability)
//
// cluster.sh runs it for every node: cluster.sh paxos v2, cluster.sh trace 1.
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

public class NodeJMX {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java NodeJMX.java PORT paxos [v1|v2] | trace PROBABILITY");
            System.exit(2);
        }
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + args[0] + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection m = c.getMBeanServerConnection();
            switch (args[1]) {
                case "paxos" -> {
                    ObjectName proxy = new ObjectName("org.apache.cassandra.db:type=StorageProxy");
                    if (args.length > 2) {
                        m.setAttribute(proxy, new Attribute("PaxosVariant", args[2]));
                    }
                    System.out.println(m.getAttribute(proxy, "PaxosVariant"));
                }
                case "trace" -> {
                    ObjectName service = new ObjectName("org.apache.cassandra.db:type=StorageService");
                    m.setAttribute(service, new Attribute("TraceProbability", Double.parseDouble(args[2])));
                    System.out.println(m.getAttribute(service, "TraceProbability"));
                }
                default -> {
                    System.err.println("unknown command " + args[1]);
                    System.exit(2);
                }
            }
        }
    }
}
